#include "base/log.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace railmpi::base {
namespace {
int g_rank = -1;  // written once at start-up; read only for messages

void vprint(const char* fmt, va_list ap) {
  char text[1024];
  std::vsnprintf(text, sizeof text, fmt, ap);
  if (g_rank >= 0)
    std::fprintf(stderr, "RailMPI[rank %d]: %s\n", g_rank, text);
  else
    std::fprintf(stderr, "RailMPI: %s\n", text);
  std::fflush(stderr);
}
}  // namespace

void set_log_rank(int rank) { g_rank = rank; }
int log_rank() { return g_rank; }

void log_error(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprint(fmt, ap);
  va_end(ap);
}

void log_info(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprint(fmt, ap);
  va_end(ap);
}

void fatal(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprint(fmt, ap);
  va_end(ap);
  std::abort();
}

}  // namespace railmpi::base
