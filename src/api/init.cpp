// Start-up and shut-down: MPI_Init, MPI_Finalize and the environment queries.
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdint>
#include <cstring>
#include <string>

#include "api/checks.hpp"
#include "api/instance.hpp"
#include "base/binding.hpp"
#include "base/cpus.hpp"
#include "base/log.hpp"

namespace railmpi::api {
namespace {

// Polls a waiting rank spins before yielding on an oversubscribed machine (tune_for_oversubscription).
constexpr unsigned kOversubscribedSpinCount = 0;

double monotonic_seconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

void pmi_barrier(void* ctx) { static_cast<runtime::PmiClient*>(ctx)->barrier(); }

void on_peer_failed(void*, int peer, std::string_view why) {
  abort_job(MPI_ERR_OTHER, "lost rank " + std::to_string(peer) + ": " + std::string(why));
}

// Shared-memory names must be unique per job and per node: the launcher's job id, else the KVS
// name (Hydra, Slurm), reduced to characters that are safe in a file name.
std::string job_id(const runtime::PmiClient& pmi) {
  const char* env = std::getenv("RAILMPI_JOBID");
  std::string raw = env ? env : pmi.kvs_name();
  if (pmi.singleton()) raw = "single" + std::to_string(::getpid());
  std::string out;
  for (char c : raw) out += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return out;
}

void make_communicators(Instance& in) {
  const int size = in.pmi.size();
  in.world.handle = MPI_COMM_WORLD;
  in.world.context = 0;
  in.world.rank = in.pmi.rank();
  in.world.job_ranks.resize(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) in.world.job_ranks[static_cast<std::size_t>(r)] = r;
  in.world.errhandler = MPI_ERRORS_ARE_FATAL;
  in.world.name = "MPI_COMM_WORLD";
  in.self.handle = MPI_COMM_SELF;
  in.self.context = 2;
  in.self.rank = 0;
  in.self.job_ranks = {in.pmi.rank()};
  in.self.errhandler = MPI_ERRORS_ARE_FATAL;
  in.self.name = "MPI_COMM_SELF";
  in.attr_universe_size = size;
  core::Info& env = in.infos.env();
  env.set("maxprocs", std::to_string(size));
  env.set("soft", std::to_string(size));
  env.set("host", in.mcm->host());
  env.set("thread_level", in.thread_level >= MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
                          : in.thread_level == MPI_THREAD_FUNNELED ? "MPI_THREAD_FUNNELED" : "MPI_THREAD_SINGLE");
  if (const char* wd = std::getenv("PWD")) env.set("wdir", wd);
}

// More ranks on this machine than cores it may use: a waiting rank should give its core to the
// rank it waits for at once, so it does not spin (unless the user set the spin count): the rank
// it waits for mostly shares its core, and runs only once it yields. bench/oversub_loop on 2
// cores, medians of interleaved runs (2026-11-27, after the shm frames lost their locked store):
// 8 ranks, 15 runs, 1000 x ring 36.2 ms with 20 polls, 35.9 with 5, 33.7 with 0 (11 runs before:
// 35.4 against 29.3), allreduce 8.5, 8.2, 8.2 ms (7.5 against 6.9); 3 ranks, 11 runs, ring 8.0
// ms with 20, 7.4 with 1, 7.3 with 0, allreduce 2.4 ms each. (2026-11-25, 10 runs: allreduce
// 10.3 ms with 50 polls, 7.5 with 20, 9.7 with 10; ring 42.4, 38.9, 34.2 ms.)
void tune_for_oversubscription(Instance& in) {
  if (base::oversubscribed(in.mcm->machine_ranks(), in.settings.machine_cpus) &&
      !base::Settings::is_set("RAILMPI_SPIN_COUNT"))
    in.settings.spin_count = kOversubscribedSpinCount;
}

int initialize(const char* call, int required, int* provided) {
  LibraryState& state = library_state();
  if (state.phase != Phase::before_init) {
    base::log_error("%s: MPI is already %s", call, state.phase == Phase::running ? "initialized" : "finalized");
    return MPI_ERR_OTHER;
  }
  auto in = std::make_unique<Instance>();
  in->wtime_origin = monotonic_seconds();
  in->settings = base::Settings::from_environment();
  in->pmi.init();
  base::set_log_rank(in->pmi.rank());
  in->main_thread = std::this_thread::get_id();
  in->thread_level = required > MPI_THREAD_SERIALIZED ? MPI_THREAD_SERIALIZED : required;
  if (in->thread_level < MPI_THREAD_SINGLE) in->thread_level = MPI_THREAD_SINGLE;
  if (provided) *provided = in->thread_level;

  const int rank = in->pmi.rank(), size = in->pmi.size();
  in->job_id = job_id(in->pmi);
  in->mcm = std::make_unique<mcm::MultiMethod>(rank, size, in->job_id, in->settings);
  std::vector<std::string> cards(static_cast<std::size_t>(size));
  if (size > 1) {
    in->pmi.put("railmpi-card-" + std::to_string(rank), in->mcm->business_card());
    in->pmi.barrier();
    for (int r = 0; r < size; ++r) cards[std::size_t(r)] = in->pmi.get("railmpi-card-" + std::to_string(r));
  } else {
    cards[0] = in->mcm->business_card();
  }
  in->mcm->connect(cards, {.ctx = &in->pmi, .barrier = &pmi_barrier});
  in->settings.machine_cpus = in->mcm->machine_cpus();  // the union of the ranks' masks, when known
  tune_for_oversubscription(*in);
  in->progress = std::make_unique<progress::Engine>(*in->mcm, in->settings);
  if (base::binds_itself(in->settings.bind, in->mcm->machine_ranks(), in->settings.machine_cpus))
    in->progress->bind_while_uncrowded(in->mcm->machine_index(), in->settings.self_bind_cpu);
  in->p2p = std::make_unique<p2p::Engine>(*in->mcm, in->settings.header_cache);
  in->p2p->set_peer_failed_hook(&on_peer_failed, nullptr);
  in->progress->set_hook(progress::Engine::HookSlot::point_to_point, &p2p::Engine::flush_copies, in->p2p.get(),
                         in->p2p->copies_armed());
  in->coll = std::make_unique<coll::Engine>(*in->p2p, *in->progress);
  in->rma = std::make_unique<rma::Engine>(*in->p2p, *in->progress);
  in->node_coll = std::make_unique<coll::NodeCollectives>(*in->mcm, *in->coll, in->settings);
  in->processor_name = in->mcm->host();
  make_communicators(*in);
  if (in->settings.verbose > 0) {
    base::log_info("binding: %s", base::binding_report(in->settings.bind, in->mcm->machine_ranks(),
                                                       in->settings.machine_cpus, in->progress->oversubscribed(),
                                                       in->progress->binding().bound())
                                      .c_str());
    base::log_info("devices: %s", in->mcm->opened_devices().c_str());
    base::log_info("waiting: spin %u polls, then up to %u yields, then sleep", in->settings.spin_count,
                   in->settings.yield_count);
    for (int r = 0; r < size; ++r)
      base::log_info("route to rank %d: %s", r, mcm::MultiMethod::route_name(in->mcm->route(r)));
    for (int r = 0; r < size; ++r) {
      if (in->mcm->route(r) != mcm::Route::shm) continue;
      const device::Figures& f = in->mcm->figures(r);
      const auto from = [](std::size_t n) { return n == SIZE_MAX ? std::string("never") : std::to_string(n) + " B"; };
      base::log_info("shm: eager to %zu B (stream %zu, exchange %zu), single copy %s (one way from %s, both ways from "
                     "%s, shared from %s), a process_vm_readv call %.2f us",
                     f.eager_limit, f.stream_eager_limit, f.exchange_eager_limit, f.single_copy ? "yes" : "no",
                     from(f.single_copy_min).c_str(), from(f.single_copy_both_ways_min).c_str(),
                     from(f.shared_copy_min).c_str(), f.single_copy_call_us);
      break;
    }
  }
  state.instance = std::move(in);
  state.phase = Phase::running;
  return MPI_SUCCESS;
}

}  // namespace

constinit LibraryState detail::library;

core::Communicator* detail::find_other_comm(MPI_Comm handle) {
  LibraryState& state = library_state();
  if (state.phase != Phase::running) return nullptr;
  if (handle == MPI_COMM_WORLD) return &state.instance->world;
  if (handle == MPI_COMM_SELF) return &state.instance->self;
  return state.instance->comms.find(handle);
}

const core::Ranks* find_group(MPI_Group handle) {
  LibraryState& state = library_state();
  if (state.phase != Phase::running) return nullptr;
  return state.instance->groups.find(handle);
}

void abort_job(int code, const std::string& why) {
  if (!why.empty()) base::log_error("%s", why.c_str());
  LibraryState& state = library_state();
  if (state.instance) state.instance->pmi.abort(code == 0 ? 1 : code, why);
  std::_Exit(code == 0 ? 1 : code);
}

}  // namespace railmpi::api

using namespace railmpi::api;

extern "C" {

int PMPI_Init(int*, char***) { return initialize("MPI_Init", MPI_THREAD_SINGLE, nullptr); }
#pragma weak MPI_Init = PMPI_Init

int PMPI_Init_thread(int*, char***, int required, int* provided) {
  return initialize("MPI_Init_thread", required, provided);
}
#pragma weak MPI_Init_thread = PMPI_Init_thread

int PMPI_Finalize(void) {
  require_running("MPI_Finalize");
  Instance& in = instance();
  // Buffered sends and control frames still queued in a device must leave before the barrier.
  in.progress->wait_until([&] { return in.bsend.empty() && in.mcm->idle(); });
  if (in.settings.verbose > 0) {
    railmpi::base::log_info("waits: %llu yields, %llu sleeps (%llu for a rank bound to this rank's CPU), "
                   "%llu polls for an answer one hand-over away",
                   static_cast<unsigned long long>(in.progress->yields()),
                   static_cast<unsigned long long>(in.progress->sleeps()),
                   static_cast<unsigned long long>(in.progress->cpu_mate_sleeps()),
                   static_cast<unsigned long long>(in.progress->near_spins()));
    const railmpi::progress::PollSpacing& spacing = in.progress->poll_spacing();
    if (spacing.fixed()) {
      railmpi::base::log_info("waits: %u PAUSEs after an empty poll (RAILMPI_SPIN_PAUSES)", spacing.best_pauses());
    } else {
      railmpi::base::log_info("waits: %u PAUSEs after an empty poll (changed %u times; rounds measured, ticks: "
                              "1 %.0f, 2 %.0f, 3 %.0f, 4 %.0f)",
                              spacing.best_pauses(), spacing.changes(), spacing.average_ticks(1),
                              spacing.average_ticks(2), spacing.average_ticks(3), spacing.average_ticks(4));
    }
    const railmpi::p2p::Engine::CopyCounts& copies = in.p2p->copy_counts();
    const auto n = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
    railmpi::base::log_info("single copies: %llu reads in %llu flushes (%llu fins frames), %llu heads written (%llu "
                            "write flushes); handed over: %llu helps asked, %llu runs (%llu bytes) given, %llu runs "
                            "(%llu bytes) written",
                            n(copies.reads), n(copies.read_flushes), n(copies.fins_frames), n(copies.writes),
                            n(copies.write_flushes), n(copies.helps_asked), n(copies.runs_given),
                            n(copies.bytes_given), n(copies.runs_written), n(copies.bytes_written));
    if (in.node_coll) {
      railmpi::base::log_info("collectives: %llu through the node's shared region (%llu of them by single copies "
                              "between two ranks)",
                              static_cast<unsigned long long>(in.node_coll->calls()),
                              static_cast<unsigned long long>(in.node_coll->pair_calls()));
    }
  }
  if (in.pmi.size() > 1) in.pmi.barrier();
  in.mcm->shutdown();
  in.pmi.finalize();
  LibraryState& state = library_state();
  state.phase = Phase::finalized;
  std::fflush(stdout);
  return MPI_SUCCESS;
}
#pragma weak MPI_Finalize = PMPI_Finalize

int PMPI_Initialized(int* flag) {
  if (!flag) return MPI_ERR_ARG;
  *flag = library_state().phase != Phase::before_init;
  return MPI_SUCCESS;
}
#pragma weak MPI_Initialized = PMPI_Initialized

int PMPI_Finalized(int* flag) {
  if (!flag) return MPI_ERR_ARG;
  *flag = library_state().phase == Phase::finalized;
  return MPI_SUCCESS;
}
#pragma weak MPI_Finalized = PMPI_Finalized

int PMPI_Abort(MPI_Comm comm, int errorcode) {
  require_running("MPI_Abort");
  abort_job(errorcode, "MPI_Abort(errorcode=" + std::to_string(errorcode) + ") called on rank " +
                           std::to_string(instance().rank()));
}
#pragma weak MPI_Abort = PMPI_Abort

int PMPI_Query_thread(int* provided) {
  require_running("MPI_Query_thread");
  if (!provided) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Query_thread", "provided is NULL");
  *provided = instance().thread_level;
  return MPI_SUCCESS;
}
#pragma weak MPI_Query_thread = PMPI_Query_thread

int PMPI_Is_thread_main(int* flag) {
  require_running("MPI_Is_thread_main");
  if (!flag) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Is_thread_main", "flag is NULL");
  *flag = std::this_thread::get_id() == instance().main_thread;
  return MPI_SUCCESS;
}
#pragma weak MPI_Is_thread_main = PMPI_Is_thread_main

int PMPI_Get_processor_name(char* name, int* resultlen) {
  require_running("MPI_Get_processor_name");
  if (!name || !resultlen)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Get_processor_name", "name or resultlen is NULL");
  const std::string& host = instance().processor_name;
  const std::size_t n = std::min<std::size_t>(host.size(), MPI_MAX_PROCESSOR_NAME - 1);
  std::memcpy(name, host.data(), n);
  name[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}
#pragma weak MPI_Get_processor_name = PMPI_Get_processor_name

int PMPI_Get_version(int* version, int* subversion) {
  if (!version || !subversion) return MPI_ERR_ARG;
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}
#pragma weak MPI_Get_version = PMPI_Get_version

int PMPI_Get_library_version(char* version, int* resultlen) {
  if (!version || !resultlen) return MPI_ERR_ARG;
  const int n = std::snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "RailMPI %s (MPI %d.%d, MPICH ABI)",
                              RAILMPI_VERSION, MPI_VERSION, MPI_SUBVERSION);
  *resultlen = n;
  return MPI_SUCCESS;
}
#pragma weak MPI_Get_library_version = PMPI_Get_library_version

double PMPI_Wtime(void) {
  LibraryState& state = library_state();
  const double origin = state.instance ? state.instance->wtime_origin : 0.0;
  return monotonic_seconds() - origin;
}
#pragma weak MPI_Wtime = PMPI_Wtime

double PMPI_Wtick(void) {
  timespec res;
  clock_getres(CLOCK_MONOTONIC, &res);
  return double(res.tv_sec) + double(res.tv_nsec) * 1e-9;
}
#pragma weak MPI_Wtick = PMPI_Wtick

}  // extern "C"
