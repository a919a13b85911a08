// Files as the MPI-IO entry points see them: the handle's object (the open file, its
// communicator, access mode, view, file pointers, error handler) and the handle's encoding.
// MPI_File is a pointer in the MPICH ABI: RailMPI's file handles are table handles of the
// usual integer form (MPI_File_c2f gives them), carried in the pointer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mpi.h"

#include "core/handle_table.hpp"
#include "io/file_domains.hpp"
#include "io/file_view.hpp"
#include "io/posix_file.hpp"

namespace railmpi::api {

// Memory a file's data access calls use as scratch, kept from one call to the next up to
// kKeptMax bytes: a buffer taken fresh each time cost a page fault and a zeroed page per 4 KiB
// (2 ranks, 4 MiB each through a view of 64 KiB blocks by two phases: 1.2 GB/s with fresh
// buffers, 3.9 with kept ones; perf: page faults, clear_page and memset over half the time).
class Scratch {
 public:
  static constexpr std::size_t kKeptMax = std::size_t{64} << 20;
  // At least `bytes` bytes (uninitialized), valid until the next take() or trim().
  std::byte* take(std::size_t bytes) {
    if (bytes > size_) {
      memory_.reset(new std::byte[bytes]);
      size_ = bytes;
    }
    return memory_.get();
  }
  // Lets go of a buffer larger than kKeptMax (at the end of a call).
  void trim() {
    if (size_ > kKeptMax) {
      memory_.reset();
      size_ = 0;
    }
  }

 private:
  std::unique_ptr<std::byte[]> memory_;
  std::size_t size_ = 0;
};

// What two-phase collective access (file_collective.cpp) keeps from one call to the next: its
// lists of runs and pieces. Fresh ones cost page faults in every call on a view of small runs
// (4 MiB a rank in 8-byte blocks: half a million pieces, 12 MB of lists).
struct TwoPhaseLists {
  std::vector<io::Extent> runs;                   // this rank's runs of the access
  std::vector<std::vector<io::Extent>> to;        // per aggregator: this rank's pieces for it
  std::vector<std::vector<std::size_t>> data_at;  // per aggregator: where each piece is in the data
  std::vector<io::Extent> sent, got;              // a round's lists, sent and received
  // Empty lists (capacity kept) for `aggregators` aggregators.
  void clear(std::size_t aggregators) {
    runs.clear();
    to.resize(aggregators);
    data_at.resize(aggregators);
    for (auto& v : to) v.clear();
    for (auto& v : data_at) v.clear();
  }
  // Lets go of lists that grew past Scratch::kKeptMax bytes in all (at the end of a call).
  void trim() {
    std::size_t bytes = (runs.capacity() + sent.capacity() + got.capacity()) * sizeof(io::Extent);
    for (const auto& v : to) bytes += v.capacity() * sizeof(io::Extent);
    for (const auto& v : data_at) bytes += v.capacity() * sizeof(std::size_t);
    if (bytes > Scratch::kKeptMax) *this = TwoPhaseLists{};
  }
};

// How a file holds data (MPI_File_set_view's datarep; file_datarep.hpp): "native" and
// "internal" as memory does, "external32", or one MPI_Register_datarep added.
enum class Representation { native, external32, user };

// A representation MPI_Register_datarep added (the functions are the program's).
struct UserDatarep {
  std::string name;
  MPI_Datarep_conversion_function* read = nullptr;   // file -> memory (MPI_CONVERSION_FN_NULL: none)
  MPI_Datarep_conversion_function* write = nullptr;  // memory -> file
  MPI_Datarep_extent_function* extent = nullptr;     // a predefined type's extent in the file
  void* extra_state = nullptr;
};

struct FileObject {
  io::PosixFile file;
  MPI_Comm comm = MPI_COMM_NULL;  // a duplicate of the opener's communicator
  std::string path;
  int amode = 0;
  MPI_Info info = MPI_INFO_NULL;  // the hints given (a copy; MPI_File_get_info returns a copy of it)
  // The view (MPI_File_set_view): displacement, etype and filetype (derived ones held), data
  // representation, and the file bytes the view shows.
  MPI_Offset disp = 0;
  MPI_Datatype etype = MPI_BYTE;
  MPI_Datatype filetype = MPI_BYTE;
  std::string datarep = "native";
  Representation rep = Representation::native;
  int user_rep = -1;  // Representation::user: its index in Instance::datareps
  std::size_t etype_size = 1;
  io::FileView view;
  MPI_Offset pointer = 0;  // the individual file pointer, in etypes of the view
  // The shared file pointer (in etypes): an MPI_Offset in a window at rank 0 of `comm`.
  MPI_Win shared = MPI_WIN_NULL;
  MPI_Offset* shared_base = nullptr;  // its memory, at rank 0
  // Collective buffering (file_collective.hpp): the hints in force (-1 disable, 0 automatic,
  // 1 enable) and the decision taken for the current view.
  int cb_read_hint = 0, cb_write_hint = 0;
  bool buffered_reads = false, buffered_writes = false;
  std::uint64_t cb_buffer_size = std::uint64_t{16} << 20;  // an aggregator's window (hint cb_buffer_size)
  std::uint64_t least_mean_run = 0;  // the smallest io::FileView::mean_run() of the ranks' views
  int errhandler = MPI_ERRORS_RETURN;
  bool atomic = false;
  // Scratch of the data access calls (two-phase exchanges, sieved reads).
  Scratch scratch[3];
  TwoPhaseLists lists;
  // A split collective (MPI_File_*_begin) not yet ended: its status.
  bool split_open = false;
  MPI_Status split_status{};
};

inline constexpr std::uint32_t kFilePrefix = 0x90000000u;  // direct kind, object type file
using FileTable = core::HandleTable<FileObject, kFilePrefix>;

inline MPI_File file_of_handle(int handle) {
  return reinterpret_cast<MPI_File>(static_cast<std::uintptr_t>(static_cast<std::uint32_t>(handle)));
}
// The table handle carried by `file` (0, no handle, for values that cannot be one).
inline int handle_of_file(MPI_File file) {
  const auto v = reinterpret_cast<std::uintptr_t>(file);
  return v > 0xffffffffu ? 0 : static_cast<int>(static_cast<std::uint32_t>(v));
}

}  // namespace railmpi::api
