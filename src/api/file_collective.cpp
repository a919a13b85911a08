// Two-phase collective access. Phase one: every rank cuts its runs of the access at the file
// domains' borders and sends each aggregator (every rank aggregates one domain) the pieces'
// offsets and lengths, with the data for a write. Phase two: each aggregator accesses the span of
// the pieces it got with one pread or pwrite (a write with holes reads the span first, then
// overlays the pieces), and for a read sends the pieces' bytes back. Small runs interleaved
// between the ranks (a view of 8-byte blocks dealt round robin) become one access per rank
// instead of one per run. An aggregator takes its domain in rounds of at most the file's
// cb_buffer_size bytes (16 MiB unless the hint says otherwise), so that its buffer and every count
// of the exchange stay bounded whatever the size of the access.
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <span>
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

// This rank's side of the exchange: its runs cut into pieces per aggregator (at the borders of
// the aggregators' windows too), each aggregator's in the order of the data, with where each
// piece is in the data (the packed stream of the program's buffer).
struct Pieces {
  std::vector<std::vector<Extent>>& to;            // per aggregator, offsets increasing
  std::vector<std::vector<std::size_t>>& data_at;  // per aggregator, parallel to `to`
  std::vector<std::size_t> first, last;            // per aggregator: this round's pieces [first, last)
  Pieces(TwoPhaseLists& lists, std::size_t aggregators)
      : to(lists.to), data_at(lists.data_at), first(aggregators, 0), last(aggregators, 0) {}
  std::span<const Extent> round_to(int d) const {
    const auto k = static_cast<std::size_t>(d);
    return {to[k].data() + first[k], last[k] - first[k]};
  }
  int round_bytes(int d) const {
    std::uint64_t n = 0;
    for (const Extent& p : round_to(d)) n += p.bytes;
    return static_cast<int>(n);  // at most one window
  }
  // Moves on to round r: each aggregator's pieces in its window r.
  void start_round(const io::FileDomains& domains, int r) {
    for (std::size_t d = 0; d < to.size(); ++d) {
      first[d] = last[d];
      const std::uint64_t end = domains.window_end(static_cast<int>(d), r);
      while (last[d] < to[d].size() && to[d][last[d]].offset < end) ++last[d];
    }
  }
};

void runs_of(const FileObject& f, std::uint64_t position, std::size_t bytes, std::vector<Extent>& runs) {
  f.view.for_each_run(position, bytes, [&runs](std::uint64_t at, std::uint64_t n) {
    runs.push_back({at, n});
    return true;
  });
}

// Offsets and lengths travel as bytes; counts of them as ints (MPI_Alltoallv).
struct Exchange {
  std::vector<int> send_counts, send_displs, recv_counts, recv_displs;
  explicit Exchange(int n) : send_counts(n), send_displs(n), recv_counts(n), recv_displs(n) {}
  int total_received() const { return recv_displs.back() + recv_counts.back(); }
  int total_sent() const { return send_displs.back() + send_counts.back(); }
  void displace() {
    for (std::size_t i = 1; i < send_counts.size(); ++i) {
      send_displs[i] = send_displs[i - 1] + send_counts[i - 1];
      recv_displs[i] = recv_displs[i - 1] + recv_counts[i - 1];
    }
  }
};

// This round's pieces' offsets and lengths to every aggregator; returns those every rank sent
// this one (their data, per source, in the same order) and how many came from each source.
int send_piece_lists(MPI_Comm comm, const Pieces& mine, std::vector<Extent>& flat, std::vector<Extent>& got,
                     std::vector<int>& got_from) {
  const int n = static_cast<int>(mine.to.size());
  Exchange x(n);
  for (int d = 0; d < n; ++d) x.send_counts[d] = static_cast<int>(mine.round_to(d).size() * sizeof(Extent));
  if (int e = PMPI_Alltoall(x.send_counts.data(), 1, MPI_INT, x.recv_counts.data(), 1, MPI_INT, comm)) return e;
  x.displace();
  flat.clear();
  for (int d = 0; d < n; ++d) flat.insert(flat.end(), mine.round_to(d).begin(), mine.round_to(d).end());
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

// A size in bytes (a positive decimal number) given by hint `key`, else `current`.
std::uint64_t size_hint_of(MPI_Info info, const char* key, std::uint64_t current) {
  if (info == MPI_INFO_NULL) return current;
  char value[32] = {0};
  int flag = 0;
  if (PMPI_Info_get(info, key, sizeof value - 1, value, &flag) != MPI_SUCCESS || !flag) return current;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(value, &end, 10);
  return end != value && *end == '\0' && v > 0 ? v : current;
}

}  // namespace

namespace railmpi::api {

int choose_collective_buffering(FileObject& f, MPI_Info info) {
  f.cb_read_hint = hint_of(info, "romio_cb_read", f.cb_read_hint);
  f.cb_write_hint = hint_of(info, "romio_cb_write", f.cb_write_hint);
  // The smallest mean run of the ranks' views, and the smallest window asked for (every rank
  // must take the same rounds).
  const std::uint64_t mine[2] = {f.view.mean_run(), size_hint_of(info, "cb_buffer_size", f.cb_buffer_size)};
  std::uint64_t least[2];
  if (int e = PMPI_Allreduce(mine, least, 2, MPI_UINT64_T, MPI_MIN, f.comm)) return e;
  f.least_mean_run = least[0];
  f.cb_buffer_size = least[1];
  f.buffered_reads = f.cb_read_hint > 0;
  f.buffered_writes = f.cb_write_hint > 0 || (f.cb_write_hint == 0 && f.least_mean_run < kTwoPhaseRunMax);
  return MPI_SUCCESS;
}

int move_data_two_phase(const char* call, MPI_File fh, FileObject& f, Direction dir, std::uint64_t position,
                        void* buf, int count, MPI_Datatype type, const core::TypeInfo& t, std::size_t bytes,
                        int failed, std::size_t& done) {
  done = 0;
  // The data converted to the file's representation before anything collective starts; a rank
  // whose conversion fails (its error already raised) takes part with no data.
  PackedView packed;
  if (!failed && dir == Direction::write && bytes > 0)
    failed = file_data_of(call, fh, f, buf, count, type, t, bytes, packed);
  if (failed) bytes = 0;
  int ranks = 1, me = 0;
  PMPI_Comm_size(f.comm, &ranks);
  PMPI_Comm_rank(f.comm, &me);
  const auto n_ranks = static_cast<std::size_t>(ranks);
  // Lists and scratch kept by the file: fresh ones cost page faults at every call.
  struct Trim {
    FileObject& f;
    ~Trim() {
      for (Scratch& s : f.scratch) s.trim();
      f.lists.trim();
    }
  } trim_at_return{f};
  f.lists.clear(n_ranks);
  const std::vector<Extent>& runs = f.lists.runs;
  runs_of(f, position, bytes, f.lists.runs);
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
  // Windows of the hint's size, so small that no count or displacement of a round's exchanges
  // can pass INT_MAX: a rank sends at most a window of data (and 16 bytes of offset and length a
  // byte, for 1-byte pieces) to each aggregator.
  const std::uint64_t window = std::min<std::uint64_t>(
      f.cb_buffer_size, static_cast<std::uint64_t>(std::numeric_limits<int>::max()) / sizeof(Extent) / n_ranks);
  const io::FileDomains domains(lo, hi, ranks, window);

  Pieces out(f.lists, n_ranks);
  {
    std::size_t at = 0;
    domains.split(runs, [&](int d, std::uint64_t offset, std::uint64_t n) {
      out.to[static_cast<std::size_t>(d)].push_back({offset, n});
      out.data_at[static_cast<std::size_t>(d)].push_back(at);
      at += static_cast<std::size_t>(n);
    });
  }
  const auto* from = static_cast<const std::byte*>(packed.ptr);
  std::optional<ReadTarget> target;
  std::uint64_t file_size = 0;
  int err = 0;
  if (dir == Direction::read) {
    target.emplace(f, buf, count, type, t, bytes);
    err = f.file.size(file_size);
  }
  std::size_t first_short = bytes;  // a read: where the data stop short (the end of the file)

  const int rounds = domains.rounds();
  std::vector<Extent>& got = f.lists.got;
  std::vector<int> got_from;
  for (int round = 0; round < rounds; ++round) {
    out.start_round(domains, round);
    if (int e = send_piece_lists(f.comm, out, f.lists.sent, got, got_from)) return e;
    Exchange data(ranks);
    for (int src = 0, k = 0; src < ranks; ++src) {
      std::uint64_t n = 0;
      for (int i = 0; i < got_from[static_cast<std::size_t>(src)]; ++i) n += got[static_cast<std::size_t>(k++)].bytes;
      data.recv_counts[src] = static_cast<int>(n);
    }
    for (int d = 0; d < ranks; ++d) data.send_counts[d] = out.round_bytes(d);
    // This rank's own pieces do not travel: they are copied between its data and its window.
    data.send_counts[me] = 0;
    data.recv_counts[me] = 0;
    data.displace();
    const std::uint64_t lo_mine = got.empty() ? 0 : span_start(got), hi_mine = got.empty() ? 0 : span_end(got);
    const std::span<std::byte> window(f.scratch[0].take(hi_mine - lo_mine), static_cast<std::size_t>(hi_mine - lo_mine));
    const std::size_t own_first = out.first[static_cast<std::size_t>(me)];

    if (dir == Direction::write) {
      std::byte* send = f.scratch[1].take(static_cast<std::size_t>(data.total_sent()));
      for (int d = 0, cursor = 0; d < ranks; ++d) {
        if (d == me) continue;
        const auto k = static_cast<std::size_t>(d);
        for (std::size_t i = out.first[k]; i < out.last[k]; ++i) {
          std::memcpy(send + cursor, from + out.data_at[k][i], out.to[k][i].bytes);
          cursor += static_cast<int>(out.to[k][i].bytes);
        }
      }
      std::byte* recv = f.scratch[2].take(static_cast<std::size_t>(data.total_received()));
      if (int e = PMPI_Alltoallv(send, data.send_counts.data(), data.send_displs.data(), MPI_BYTE, recv,
                                 data.recv_counts.data(), data.recv_displs.data(), MPI_BYTE, f.comm))
        return e;
      if (!got.empty() && !err) {
        std::vector<Extent> sorted = got;
        if (!io::covers(sorted, lo_mine, hi_mine)) {  // holes keep what the file holds
          std::size_t read = 0;
          err = f.file.read_at(lo_mine, window, read);
          if (read < window.size()) std::memset(window.data() + read, 0, window.size() - read);
        }
        std::size_t k = 0, received = 0, own_done = 0;
        for (int src = 0; src < ranks; ++src) {
          for (int i = 0; i < got_from[static_cast<std::size_t>(src)]; ++i) {
            const Extent& p = got[k++];
            const std::byte* piece =
                src == me ? from + out.data_at[static_cast<std::size_t>(me)][own_first + own_done++] : recv + received;
            std::memcpy(window.data() + (p.offset - lo_mine), piece, p.bytes);
            if (src != me) received += p.bytes;
          }
        }
        std::size_t wrote = 0;
        if (!err) err = f.file.write_at(lo_mine, window, wrote);
      }
      continue;
    }

    // Read: each aggregator reads its window once and sends every piece's bytes back.
    if (!got.empty() && !err) {
      std::size_t read = 0;
      err = f.file.read_at(lo_mine, window, read);
      if (read < window.size()) std::memset(window.data() + read, 0, window.size() - read);
    }
    std::byte* send = f.scratch[1].take(static_cast<std::size_t>(data.total_received()));
    for (int src = 0, k = 0, sent = 0; src < ranks; ++src) {
      for (int i = 0; i < got_from[static_cast<std::size_t>(src)]; ++i) {
        const Extent& p = got[static_cast<std::size_t>(k++)];
        if (src == me) continue;  // this rank takes its own pieces from the window
        std::memcpy(send + sent, window.data() + (p.offset - lo_mine), p.bytes);
        sent += static_cast<int>(p.bytes);
      }
    }
    // Sizes swap roles on the way back.
    std::byte* back = f.scratch[2].take(static_cast<std::size_t>(data.total_sent()));
    if (int e = PMPI_Alltoallv(send, data.recv_counts.data(), data.recv_displs.data(), MPI_BYTE, back,
                               data.send_counts.data(), data.send_displs.data(), MPI_BYTE, f.comm))
      return e;
    // Into data order; the data end where the file does.
    std::byte* to = target->bytes();
    for (int d = 0; d < ranks; ++d) {
      const auto k = static_cast<std::size_t>(d);
      std::size_t cursor = static_cast<std::size_t>(data.send_displs[d]);
      for (std::size_t i = out.first[k]; i < out.last[k]; ++i) {
        const Extent& p = out.to[k][i];
        const std::uint64_t valid = p.offset >= file_size ? 0 : std::min<std::uint64_t>(p.bytes, file_size - p.offset);
        const std::byte* piece = d == me ? window.data() + (p.offset - lo_mine) : back + cursor;
        std::memcpy(to + out.data_at[k][i], piece, static_cast<std::size_t>(valid));
        if (valid < p.bytes) first_short = std::min(first_short, out.data_at[k][i] + static_cast<std::size_t>(valid));
        if (d != me) cursor += static_cast<std::size_t>(p.bytes);
      }
    }
  }

  int any = 0;
  if (int e = PMPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, f.comm)) return e;
  if (any)
    return file_error(&f, fh, io_error_class(any), call, "collective %s %s: %s%s",
                      dir == Direction::write ? "write to" : "read from", f.path.c_str(), std::strerror(any),
                      err ? "" : " (on another rank)");
  if (dir == Direction::write) {
    done = bytes;
    return failed;
  }
  done = first_short;
  if (failed) return failed;
  return target->unpack(call, fh, done);
}

}  // namespace railmpi::api
