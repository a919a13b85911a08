#include "mcm/rails/policy.hpp"

namespace railmpi::mcm::rails {

bool parse_policy(std::string_view text, Policy& out) {
  if (text == "binding") out = Policy::binding;
  else if (text == "round-robin") out = Policy::round_robin;
  else if (text == "striping") out = Policy::striping;
  else if (text == "epc") out = Policy::epc;
  else return false;
  return true;
}

const char* policy_name(Policy p) {
  switch (p) {
    case Policy::binding: return "binding";
    case Policy::round_robin: return "round-robin";
    case Policy::striping: return "striping";
    case Policy::epc: return "epc";
  }
  return "?";
}

bool may_stripe(Policy p) { return p == Policy::striping || p == Policy::epc; }

}  // namespace railmpi::mcm::rails
