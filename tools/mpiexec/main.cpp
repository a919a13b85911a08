// mpiexec: RailMPI's launcher (one or several hosts) and PMI-1 server.
#include "job.hpp"
#include "options.hpp"

int main(int argc, char** argv) {
  railmpi::mpiexec::ParseResult parsed = railmpi::mpiexec::parse_options(argc, argv);
  if (!parsed.options) return parsed.exit_code;
  railmpi::mpiexec::Job job(std::move(*parsed.options));
  return job.run();
}
