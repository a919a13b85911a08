// Collective data access by two phases (io/file_domains.hpp): the MPI_File_*_all calls take it when
// the file's collective buffering is on for their direction (FileObject::buffered_reads/_writes).
#pragma once

#include "api/file_access.hpp"

namespace railmpi::api {

// As move_data(), collective over the file's communicator: every rank of it calls it.
int move_data_two_phase(const char* call, MPI_File fh, FileObject& f, Direction dir, std::uint64_t position,
                        void* buf, int count, MPI_Datatype type, const core::TypeInfo& t, std::size_t& done);

// Decides (collectively) whether the file's collective calls buffer, as the hints romio_cb_read /
// romio_cb_write of `info` say ("enable", "disable", "automatic"; `info` may be MPI_INFO_NULL).
// Automatic: collective writes buffer when a rank's view has runs of less than
// kTwoPhaseRunMax bytes on average; collective reads never (each rank sieves its own reads, see
// move_data(): cheaper than the exchange wherever the file's pages are in memory).
// 2 ranks, views of blocks dealt round robin, 4 MiB per rank (bench/io.sh strided_write):
// by runs / by two phases 4.2 / 112 MB/s at 8 B blocks, 1052 / 3592 at 2 KiB, 2716 / 3725 at
// 4 KiB, 5218 / 3830 at 8 KiB, 6351 / 3692 at 64 KiB.
inline constexpr std::uint64_t kTwoPhaseRunMax = 8 * 1024;
int choose_collective_buffering(FileObject& f, MPI_Info info);

}  // namespace railmpi::api
