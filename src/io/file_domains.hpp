// Two-phase collective access (the published design of ROMIO's collective buffering, rebuilt):
// the span of the file that a collective call touches, from the lowest byte any rank accesses to
// past the highest, is cut into one domain per aggregating rank, and each rank's runs are cut at
// the domains' borders into pieces that go to the domain's aggregator, which then reads or writes
// its whole domain in one access instead of every rank making one per run.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace railmpi::io {

struct Extent {
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
  bool operator==(const Extent&) const = default;
};

// Each domain is accessed in rounds of at most `window` bytes (the aggregator's buffer): round r
// of domain d is [start(d) + r*window, start(d) + (r+1)*window).
class FileDomains {
 public:
  // [lo, hi) cut into `aggregators` domains of equal size (the last one shorter), each accessed in
  // windows of at most `window` bytes.
  FileDomains(std::uint64_t lo, std::uint64_t hi, int aggregators, std::uint64_t window = UINT64_MAX)
      : lo_(lo), hi_(std::max(lo, hi)), count_(std::max(aggregators, 1)) {
    const std::uint64_t span = hi_ - lo_;
    size_ = std::max<std::uint64_t>(1, (span + static_cast<std::uint64_t>(count_) - 1) / static_cast<std::uint64_t>(count_));
    window_ = std::clamp<std::uint64_t>(window, 1, size_);
  }
  int count() const { return count_; }
  int owner(std::uint64_t offset) const {
    return static_cast<int>(std::min<std::uint64_t>((offset - lo_) / size_, static_cast<std::uint64_t>(count_ - 1)));
  }
  std::uint64_t start(int d) const { return std::min(hi_, lo_ + static_cast<std::uint64_t>(d) * size_); }
  std::uint64_t end(int d) const { return d == count_ - 1 ? hi_ : std::min(hi_, start(d) + size_); }
  // The rounds every domain takes (the largest domain's windows).
  int rounds() const {
    std::uint64_t largest = 0;
    for (int d = 0; d < count_; ++d) largest = std::max(largest, end(d) - start(d));
    return static_cast<int>(std::max<std::uint64_t>(1, (largest + window_ - 1) / window_));
  }
  // The round in which domain d's aggregator accesses `offset` (a byte of its domain).
  int round(int d, std::uint64_t offset) const { return static_cast<int>((offset - start(d)) / window_); }
  // Where round r's window of domain d ends.
  std::uint64_t window_end(int d, int r) const {
    return std::min(end(d), start(d) + (static_cast<std::uint64_t>(r) + 1) * window_);
  }

  // Calls piece(domain, offset, bytes) for `runs` (in order) cut at the domains' borders and at
  // their windows' borders.
  template <class Piece>
  void split(std::span<const Extent> runs, Piece&& piece) const {
    for (const Extent& r : runs) {
      std::uint64_t at = r.offset, left = r.bytes;
      while (left > 0) {
        const int d = owner(at);
        const std::uint64_t stop = window_ >= size_ ? end(d) : window_end(d, round(d, at));
        const std::uint64_t n = std::min(left, stop - at);
        piece(d, at, n);
        at += n;
        left -= n;
      }
    }
  }

 private:
  std::uint64_t lo_, hi_, size_ = 1, window_ = 1;
  int count_;
};

// Whether `pieces` cover [lo, hi) without a hole (sorts them by offset).
inline bool covers(std::vector<Extent>& pieces, std::uint64_t lo, std::uint64_t hi) {
  std::sort(pieces.begin(), pieces.end(), [](const Extent& a, const Extent& b) { return a.offset < b.offset; });
  std::uint64_t reached = lo;
  for (const Extent& p : pieces) {
    if (p.offset > reached) return false;
    reached = std::max(reached, p.offset + p.bytes);
  }
  return reached >= hi;
}

}  // namespace railmpi::io
