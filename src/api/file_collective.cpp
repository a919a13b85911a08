// Two-phase collective access. Phase one: every rank cuts its runs of the access at the file
// domains' borders and sends each aggregator (every rank aggregates one domain) the pieces'
// offsets and lengths, with the data for a write. Phase two: each aggregator accesses the span of
// the pieces it got with one pread or pwrite (a write with holes reads the span first, then
// overlays the pieces), and for a read sends the pieces' bytes back. Small runs interleaved
// between the ranks (a view of 8-byte blocks dealt round robin) become one access per rank
// instead of one per run.
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "api/file_checks.hpp"
#include "api/file_collective.hpp"
#include "api/file_datarep.hpp"
#include "api/typed_buffer.hpp"
#include "io/file_domains.hpp"

using namespace railmpi;
using namespace railmpi::api;

namespace {

using io::Extent;

// This rank's side of the exchange: its runs cut into pieces per aggregator, in the order of the
// data (the packed stream of the program's buffer).
struct Pieces {
  std::vector<std::vector<Extent>> to;  // per aggregator
  std::vector<int> bytes_to;            // data bytes per aggregator
};

std::vector<Extent> runs_of(const FileObject& f, std::uint64_t position, std::size_t bytes) {
  std::vector<Extent> runs;
  f.view.for_each_run(position, bytes, [&runs](std::uint64_t at, std::uint64_t n) {
    runs.push_back({at, n});
    return true;
  });
  return runs;
}

// Offsets and lengths travel as bytes; counts of them as ints (MPI_Alltoallv).
struct Exchange {
  std::vector<int> send_counts, send_displs, recv_counts, recv_displs;
  explicit Exchange(int n) : send_counts(n), send_displs(n), recv_counts(n), recv_displs(n) {}
  int total_received() const { return recv_displs.back() + recv_counts.back(); }
  void displace() {
    for (std::size_t i = 1; i < send_counts.size(); ++i) {
      send_displs[i] = send_displs[i - 1] + send_counts[i - 1];
      recv_displs[i] = recv_displs[i - 1] + recv_counts[i - 1];
    }
  }
};

// The pieces' offsets and lengths to every aggregator; returns those every rank sent this one
// (their data, per source, in the same order) and how many came from each source.
int send_piece_lists(MPI_Comm comm, const Pieces& mine, std::vector<Extent>& got, std::vector<int>& got_from) {
  const int n = static_cast<int>(mine.to.size());
  Exchange x(n);
  for (int d = 0; d < n; ++d) x.send_counts[d] = static_cast<int>(mine.to[d].size() * sizeof(Extent));
  if (int e = PMPI_Alltoall(x.send_counts.data(), 1, MPI_INT, x.recv_counts.data(), 1, MPI_INT, comm)) return e;
  x.displace();
  std::vector<Extent> flat;
  for (const auto& list : mine.to) flat.insert(flat.end(), list.begin(), list.end());
  got.resize(static_cast<std::size_t>(x.total_received()) / sizeof(Extent));
  if (int e = PMPI_Alltoallv(flat.data(), x.send_counts.data(), x.send_displs.data(), MPI_BYTE, got.data(),
                             x.recv_counts.data(), x.recv_displs.data(), MPI_BYTE, comm))
    return e;
  got_from.resize(static_cast<std::size_t>(n));
  for (int s = 0; s < n; ++s) got_from[static_cast<std::size_t>(s)] = x.recv_counts[s] / static_cast<int>(sizeof(Extent));
  return MPI_SUCCESS;
}

std::uint64_t span_end(const std::vector<Extent>& pieces) {
  std::uint64_t hi = 0;
  for (const Extent& p : pieces) hi = std::max(hi, p.offset + p.bytes);
  return hi;
}
std::uint64_t span_start(const std::vector<Extent>& pieces) {
  std::uint64_t lo = std::numeric_limits<std::uint64_t>::max();
  for (const Extent& p : pieces) lo = std::min(lo, p.offset);
  return lo;
}

int hint_of(MPI_Info info, const char* key, int current) {
  if (info == MPI_INFO_NULL) return current;
  char value[32] = {0};
  int flag = 0;
  if (PMPI_Info_get(info, key, sizeof value - 1, value, &flag) != MPI_SUCCESS || !flag) return current;
  if (!std::strcmp(value, "enable")) return 1;
  if (!std::strcmp(value, "disable")) return -1;
  if (!std::strcmp(value, "automatic")) return 0;
  return current;
}

}  // namespace

namespace railmpi::api {

int choose_collective_buffering(FileObject& f, MPI_Info info) {
  f.cb_read_hint = hint_of(info, "romio_cb_read", f.cb_read_hint);
  f.cb_write_hint = hint_of(info, "romio_cb_write", f.cb_write_hint);
  const std::uint64_t mine = f.view.mean_run();
  if (int e = PMPI_Allreduce(&mine, &f.least_mean_run, 1, MPI_UINT64_T, MPI_MIN, f.comm)) return e;
  f.buffered_reads = f.cb_read_hint > 0;
  f.buffered_writes = f.cb_write_hint > 0 || (f.cb_write_hint == 0 && f.least_mean_run < kTwoPhaseRunMax);
  return MPI_SUCCESS;
}

int move_data_two_phase(const char* call, MPI_File fh, FileObject& f, Direction dir, std::uint64_t position,
                        void* buf, int count, MPI_Datatype type, const core::TypeInfo& t, std::size_t& done) {
  done = 0;
  std::size_t bytes = 0;
  // The data converted to the file's representation before anything collective starts; a rank
  // whose conversion fails (its error already raised) takes part with no data.
  int failed = access_file_bytes(call, fh, f, count, type, t, bytes);
  PackedView packed;
  if (!failed && dir == Direction::write && bytes > 0) failed = file_data_of(call, fh, f, buf, count, type, t, packed);
  if (failed) bytes = 0;
  const std::vector<Extent> runs = runs_of(f, position, bytes);
  int ranks = 1;
  PMPI_Comm_size(f.comm, &ranks);
  // The span every rank's runs lie in.
  std::uint64_t mine[2] = {std::numeric_limits<std::uint64_t>::max(), std::numeric_limits<std::uint64_t>::max()};
  if (!runs.empty()) {
    mine[0] = span_start(runs);
    mine[1] = std::numeric_limits<std::uint64_t>::max() - span_end(runs);
  }
  std::uint64_t all[2];
  if (int e = PMPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_MIN, f.comm)) return e;
  const std::uint64_t lo = all[0], hi = std::numeric_limits<std::uint64_t>::max() - all[1];
  if (lo >= hi) return failed;  // nobody accesses anything
  const io::FileDomains domains(lo, hi, ranks);

  Pieces out;
  out.to.resize(static_cast<std::size_t>(ranks));
  out.bytes_to.assign(static_cast<std::size_t>(ranks), 0);
  domains.split(runs, [&out](int d, std::uint64_t at, std::uint64_t n) {
    out.to[static_cast<std::size_t>(d)].push_back({at, n});
    out.bytes_to[static_cast<std::size_t>(d)] += static_cast<int>(n);
  });
  std::vector<Extent> got;
  std::vector<int> got_from;
  if (int e = send_piece_lists(f.comm, out, got, got_from)) return e;
  Exchange data(ranks);
  for (int s = 0, k = 0; s < ranks; ++s) {
    std::uint64_t n = 0;
    for (int i = 0; i < got_from[static_cast<std::size_t>(s)]; ++i) n += got[static_cast<std::size_t>(k++)].bytes;
    data.recv_counts[s] = static_cast<int>(n);
  }
  for (int d = 0; d < ranks; ++d) data.send_counts[d] = out.bytes_to[static_cast<std::size_t>(d)];
  // This rank's own pieces do not travel: they are copied between its buffer and its domain.
  int me = 0;
  PMPI_Comm_rank(f.comm, &me);
  data.send_counts[me] = 0;
  data.recv_counts[me] = 0;
  data.displace();
  const std::uint64_t lo_mine = got.empty() ? 0 : span_start(got), hi_mine = got.empty() ? 0 : span_end(got);
  // Scratch kept by the file: fresh buffers cost a page fault per 4 KiB at every call.
  const std::span<std::byte> domain(f.scratch[0].take(hi_mine - lo_mine), static_cast<std::size_t>(hi_mine - lo_mine));
  struct Trim {
    FileObject& f;
    ~Trim() {
      for (Scratch& s : f.scratch) s.trim();
    }
  } trim_at_return{f};
  int err = 0;

  if (dir == Direction::write) {
    // The data in aggregator order (pieces were cut in data order, so each aggregator's come in
    // the same order as their offsets in out.to).
    const auto* from = static_cast<const std::byte*>(packed.ptr);
    std::byte* send = f.scratch[1].take(bytes);
    std::vector<int> cursor(data.send_displs.begin(), data.send_displs.end());
    std::vector<std::size_t> own_at;  // where this rank's pieces for itself are in its data
    std::size_t at = 0;
    domains.split(runs, [&](int d, std::uint64_t, std::uint64_t n) {
      if (d == me) {
        own_at.push_back(at);
      } else {
        std::memcpy(send + cursor[static_cast<std::size_t>(d)], from + at, n);
        cursor[static_cast<std::size_t>(d)] += static_cast<int>(n);
      }
      at += n;
    });
    std::byte* recv = f.scratch[2].take(static_cast<std::size_t>(data.total_received()));
    if (int e = PMPI_Alltoallv(send, data.send_counts.data(), data.send_displs.data(), MPI_BYTE, recv,
                               data.recv_counts.data(), data.recv_displs.data(), MPI_BYTE, f.comm))
      return e;
    if (!got.empty()) {
      std::vector<Extent> sorted = got;
      if (!io::covers(sorted, lo_mine, hi_mine)) {  // holes keep what the file holds
        std::size_t read = 0;
        err = f.file.read_at(lo_mine, domain, read);
        if (read < domain.size()) std::memset(domain.data() + read, 0, domain.size() - read);
      }
      std::size_t k = 0, received = 0, own = 0;
      for (int source = 0; source < ranks; ++source) {
        for (int i = 0; i < got_from[static_cast<std::size_t>(source)]; ++i) {
          const Extent& p = got[k++];
          const std::byte* piece = source == me ? from + own_at[own++] : recv + received;
          std::memcpy(domain.data() + (p.offset - lo_mine), piece, p.bytes);
          if (source != me) received += p.bytes;
        }
      }
      std::size_t wrote = 0;
      if (!err) err = f.file.write_at(lo_mine, domain, wrote);
    }
    int any = 0;
    if (int e = PMPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, f.comm)) return e;
    if (any)
      return file_error(&f, fh, io_error_class(any), call, "collective write to %s: %s%s", f.path.c_str(),
                        std::strerror(any), err ? "" : " (on another rank)");
    done = bytes;
    return failed;
  }

  // Read: each aggregator reads its span once and sends every piece's bytes back.
  std::uint64_t file_size = 0;
  err = f.file.size(file_size);
  if (!got.empty() && !err) {
    std::size_t read = 0;
    err = f.file.read_at(lo_mine, domain, read);
    if (read < domain.size()) std::memset(domain.data() + read, 0, domain.size() - read);
  }
  std::byte* send = f.scratch[1].take(static_cast<std::size_t>(data.total_received()));
  {
    std::size_t k = 0, sent = 0;
    for (int source = 0; source < ranks; ++source) {
      for (int i = 0; i < got_from[static_cast<std::size_t>(source)]; ++i) {
        const Extent& p = got[k++];
        if (source == me) continue;  // this rank takes its own pieces from the domain
        std::memcpy(send + sent, domain.data() + (p.offset - lo_mine), p.bytes);
        sent += p.bytes;
      }
    }
  }
  // Sizes swap roles on the way back.
  std::byte* back = f.scratch[2].take(bytes);
  if (int e = PMPI_Alltoallv(send, data.recv_counts.data(), data.recv_displs.data(), MPI_BYTE, back,
                             data.send_counts.data(), data.send_displs.data(), MPI_BYTE, f.comm))
    return e;
  int any = 0;
  if (int e = PMPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, f.comm)) return e;
  if (any)
    return file_error(&f, fh, io_error_class(any), call, "collective read from %s: %s%s", f.path.c_str(),
                      std::strerror(any), err ? "" : " (on another rank)");
  // Back into data order; the data end where the file does.
  const ReadTarget target(f, buf, count, type, t, bytes);
  std::byte* to = target.bytes();
  std::vector<int> cursor(data.send_displs.begin(), data.send_displs.end());
  bool ended = false;
  domains.split(runs, [&](int d, std::uint64_t at, std::uint64_t n) {
    if (!ended) {
      const std::uint64_t valid = at >= file_size ? 0 : std::min<std::uint64_t>(n, file_size - at);
      const std::byte* piece = d == me ? domain.data() + (at - lo_mine) : back + cursor[static_cast<std::size_t>(d)];
      std::memcpy(to + done, piece, valid);
      done += valid;
      ended = valid < n;
    }
    cursor[static_cast<std::size_t>(d)] += static_cast<int>(n);
  });
  if (failed) return failed;
  return target.unpack(call, fh, done);
}

}  // namespace railmpi::api
