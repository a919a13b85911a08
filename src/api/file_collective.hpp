// Collective data access by two phases (io/file_domains.hpp): the MPI_File_*_all calls take it when
// the file's collective buffering is on for their direction (FileObject::buffered_reads/_writes).
#pragma once

#include "api/file_access.hpp"

namespace railmpi::api {

// As move_data(), collective over the file's communicator: every rank of it calls it, a rank
// whose `bytes` could not be reckoned (`failed`, an error class already raised) too, with no data.
int move_data_two_phase(const char* call, MPI_File fh, FileObject& f, Direction dir, std::uint64_t position,
                        void* buf, int count, MPI_Datatype type, const core::TypeInfo& t, std::size_t bytes,
                        int failed, std::size_t& done);

// Collective writes through views whose runs average less than this go by two phases.
// 2 ranks, views of blocks dealt round robin, 4 MiB per rank (bench/lib_ab.sh osu_io
// strided_write, 5 rounds, MB/s of both, by two phases / by runs): 4-16 KiB 9800-11000 /
// 10200-11400, 32 KiB 11400 / 4700, 64 KiB 11400 / 8400, 128 KiB 11700 / 14300, 256 KiB
// 11600 / 19700. Writes by runs from both ranks interleaved in one file contend in the kernel.
inline constexpr std::uint64_t kTwoPhaseRunMax = 128 * 1024;

// Decides (collectively) whether the file's collective calls buffer, as the hints romio_cb_read /
// romio_cb_write of `info` say ("enable", "disable", "automatic"; `info` may be MPI_INFO_NULL),
// and takes the aggregators' window from the hint cb_buffer_size (bytes).
// Automatic: collective writes buffer when a rank's view has runs of less than
// kTwoPhaseRunMax bytes on average; collective reads never (each rank sieves its own reads, see
// move_data(): cheaper than the exchange wherever the file's pages are in memory).
int choose_collective_buffering(FileObject& f, MPI_Info info);

}  // namespace railmpi::api
