// Whether the ranks mpiexec starts have glibc register a restartable sequence (RAILMPI_GLIBC_RSEQ).
//
// glibc (2.35 on) registers one for every thread; the kernel then updates it on each return to
// user space after the thread was switched in. With more ranks than CPUs a waiting rank's yields
// switch at every hop of a message: 8 ranks on 2 CPUs, the ring of bench/oversub_loop, 3% of all
// CPU time went to that update (perf, `__rseq_handle_notify_resume`), and the ring took 0.94 of
// the time without the registration (bench/lib_ab.sh, 60 rounds). glibc itself only reads the
// sequence's CPU number (sched_getcpu, which without it asks the vDSO), and a program that
// registers its own needs glibc's off anyway. So mpiexec can add glibc.pthread.rseq=0 to the
// ranks' GLIBC_TUNABLES (RAILMPI_GLIBC_RSEQ=0), unless the variable already says. Automatic keeps
// glibc's registration for now (glibc_rseq.cpp: waits beside busy programs).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace railmpi::mpiexec {

enum class GlibcRseq { automatic, off, on };

// "" (automatic), "0" (off) or "1" (on, glibc's own choice). False for anything else.
bool parse_glibc_rseq(std::string_view text, GlibcRseq& out);

// The GLIBC_TUNABLES a rank gets: `current` (the variable as the ranks would see it, nullopt when
// unset) with glibc.pthread.rseq=0 added when `choice` is `off`; nullopt when the variable stays as
// it is (another choice, or `current` already sets glibc.pthread.rseq).
std::optional<std::string> glibc_tunables_for_rank(std::optional<std::string_view> current, GlibcRseq choice);

}  // namespace railmpi::mpiexec
