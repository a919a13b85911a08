#include "glibc_rseq.hpp"

namespace railmpi::mpiexec {

namespace {

constexpr std::string_view kRseqTunable = "glibc.pthread.rseq";

// Whether the colon-separated list `tunables` sets `name` (as "name=value").
bool sets(std::string_view tunables, std::string_view name) {
  while (!tunables.empty()) {
    const std::size_t colon = tunables.find(':');
    const std::string_view item = tunables.substr(0, colon);
    if (item.size() > name.size() && item.starts_with(name) && item[name.size()] == '=') return true;
    if (colon == std::string_view::npos) break;
    tunables.remove_prefix(colon + 1);
  }
  return false;
}

}  // namespace

bool parse_glibc_rseq(std::string_view text, GlibcRseq& out) {
  if (text.empty()) out = GlibcRseq::automatic;
  else if (text == "0") out = GlibcRseq::off;
  else if (text == "1") out = GlibcRseq::on;
  else return false;
  return true;
}

std::optional<std::string> glibc_tunables_for_rank(std::optional<std::string_view> current, GlibcRseq choice) {
  // Automatic keeps glibc's registration for now: beside busy programs (tests/mpi/oversub_crowded,
  // 8 ranks on 2 cores beside a spinning program a core), ranks without it used more than a fifth
  // of a 300 ms wait in CPU in 5 of 42 runs, with it in none of 24.
  if (choice != GlibcRseq::off) return std::nullopt;
  const std::string setting = std::string(kRseqTunable) + "=0";
  if (!current || current->empty()) return setting;
  if (sets(*current, kRseqTunable)) return std::nullopt;
  return std::string(*current) + ":" + setting;
}

}  // namespace railmpi::mpiexec
