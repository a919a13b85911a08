#include "base/self_binding.hpp"

#include "base/cpus.hpp"

namespace railmpi::base {

bool SelfBinding::bind(int index) {
  if (bound() || index < 0) return false;
  std::vector<int> mask = affinity_cpus();
  if (mask.size() < 2) return false;
  const int cpu = mask[static_cast<std::size_t>(index) % mask.size()];
  if (!set_affinity_cpus({&cpu, 1})) return false;
  mask_ = std::move(mask);
  cpu_ = cpu;
  return true;
}

bool SelfBinding::release() {
  if (!bound()) return false;
  set_affinity_cpus(mask_);  // should it fail, the rank stays bound: nothing else to do
  cpu_ = -1;
  return true;
}

}  // namespace railmpi::base
