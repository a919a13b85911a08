// The one runtime object: everything a RailMPI process holds between MPI_Init and MPI_Finalize.
// No other mutable state exists at namespace scope (see library_state()).
#pragma once

#include <array>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "mpi.h"

#include "api/bsend_buffer.hpp"
#include "api/coll_call_room.hpp"
#include "api/files.hpp"
#include "api/generalized_requests.hpp"
#include "api/tools_interface.hpp"
#include "api/windows.hpp"
#include "base/settings.hpp"
#include "coll/node_collectives.hpp"
#include "coll/schedule.hpp"
#include "core/attributes.hpp"
#include "core/comm_table.hpp"
#include "core/communicator.hpp"
#include "core/context_ids.hpp"
#include "core/datatype/type_table.hpp"
#include "core/group.hpp"
#include "core/info.hpp"
#include "core/reduce_op.hpp"
#include "core/request_table.hpp"
#include "mcm/multi_method.hpp"
#include "p2p/engine.hpp"
#include "progress/engine.hpp"
#include "runtime/pmi_client.hpp"

namespace railmpi::api {

struct Instance {
  base::Settings settings;
  runtime::PmiClient pmi;
  std::string job_id;  // names this job's shared-memory objects
  std::unique_ptr<mcm::MultiMethod> mcm;
  std::unique_ptr<progress::Engine> progress;
  std::unique_ptr<p2p::Engine> p2p;
  std::unique_ptr<coll::Engine> coll;  // collective schedules in flight
  std::unique_ptr<coll::NodeCollectives> node_coll;  // blocking collectives within one node
  std::unique_ptr<rma::Engine> rma;    // windows' target sides (one-sided communication)
  core::OpTable ops;                   // user reduction operations
  core::RequestTable requests;
  core::Communicator world;
  core::Communicator self;
  core::CommTable comms;          // dynamic communicators
  core::ContextIds context_ids;   // this process's free context ids (see core/context_ids.hpp)
  core::GroupTable groups;
  core::dtype::TypeTable types;   // derived datatypes (predefined ones are decoded from the handle)
  core::AttributeStore attributes;
  core::InfoTable infos;
  WinTable windows;
  FileTable files;
  std::vector<UserDatarep> datareps;  // MPI_Register_datarep's
  int file_null_errhandler = MPI_ERRORS_RETURN;  // MPI_FILE_NULL's: failed opens and deletes
  std::uint64_t shared_windows_made = 0;  // names MPI_Win_allocate_shared's segments
  // User error classes and codes (MPI_Add_error_class/-code/-string), numbered from
  // kFirstUserError: code -> {class, string}.
  struct UserError {
    int errclass;
    std::string text;
  };
  std::vector<UserError> user_errors;
  static constexpr int kFirstUserError = 0x40000000;  // above MPI_ERR_LASTCODE (as MPICH)
  std::vector<MPI_Comm_errhandler_function*> user_errhandlers;  // handle index -> function
  BsendBuffer bsend;
  GeneralizedRequests grequests;  // MPI_Grequest_start's functions, by request handle
  // The types MPI_Type_create_f90_* made: the same arguments give the same handle, and they count
  // as predefined (MPI_Type_free refuses them).
  struct F90Type {
    int combiner, p, r;
    MPI_Datatype handle;
  };
  std::vector<F90Type> f90_types;
  CollCallRoom coll_room;
  // MPI_Sendrecv_replace's copy of an outgoing message of up to kReplaceRoomMax bytes, kept.
  static constexpr std::size_t kReplaceRoomMax = std::size_t{64} << 10;
  base::ByteRoom replace_room;  // the collective call being set up (api/coll_call_room.hpp)
  int thread_level = MPI_THREAD_SINGLE;
  std::thread::id main_thread;
  double wtime_origin = 0;
  std::string processor_name;
  // Values behind the predefined attributes (MPI_Comm_get_attr returns pointers to them).
  int attr_tag_ub = 0x7fffffff;
  int attr_host = MPI_PROC_NULL;
  int attr_io = MPI_ANY_SOURCE;
  int attr_wtime_is_global = 0;
  int attr_universe_size = 1;
  int attr_appnum = 0;
  int attr_lastusedcode = MPI_ERR_LASTCODE;

  int rank() const { return world.rank; }
};

enum class Phase { before_init, running, finalized };

struct LibraryState {
  Phase phase = Phase::before_init;
  std::unique_ptr<Instance> instance;
  std::unique_ptr<ToolsState> tools;  // while MPI_T is initialized (api/tools.cpp)
};

namespace detail {
extern constinit LibraryState library;  // defined in init.cpp; reach it through library_state()
// find_comm() for handles other than MPI_COMM_WORLD.
core::Communicator* find_other_comm(MPI_Comm handle);
}  // namespace detail

// The process-wide library state (the single global object). Inline: every entry point asks.
inline LibraryState& library_state() { return detail::library; }
inline Instance& instance() { return *library_state().instance; }

// Communicator for a handle; nullptr if the handle is not a live communicator.
inline core::Communicator* find_comm(MPI_Comm handle) {
  LibraryState& state = library_state();
  if (state.phase == Phase::running && handle == MPI_COMM_WORLD) [[likely]]
    return &state.instance->world;
  return detail::find_other_comm(handle);
}
// Group for a handle (MPI_GROUP_EMPTY included); nullptr if not a live group.
const core::Ranks* find_group(MPI_Group handle);

// Ends the whole job through the launcher with an exit code (prints `why` first when not empty).
[[noreturn]] void abort_job(int code, const std::string& why);

}  // namespace railmpi::api
