// Runs the schedules of simulated processes to completion without a network: sends deliver
// copies into per-(destination, source, tag) FIFO mailboxes at once (eager), receives match in
// posting order, and a round's local steps run when all its receives matched -- the same order
// the real engine guarantees. Detects deadlocks and size mismatches.
#pragma once

#include <cstring>
#include <deque>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "coll/schedule.hpp"

namespace railmpi::coll {

class Simulator {
 public:
  // procs[j] is the schedule of simulated job rank j (nullptr: that process takes no part).
  // Returns an empty string on success, else what went wrong.
  static std::string run(const std::vector<Schedule*>& procs) {
    using Key = std::tuple<int, int, int, int>;  // destination job, context, source rank, tag
    std::map<Key, std::deque<std::vector<std::byte>>> mail;
    for (;;) {
      bool progress = false, all_done = true;
      for (std::size_t j = 0; j < procs.size(); ++j) {
        Schedule* s = procs[j];
        if (!s) continue;
        while (s->current_ < s->rounds_.size()) {
          Schedule::Round& r = s->rounds_[s->current_];
          const core::Communicator& c = *s->comm_;
          if (!r.posted) {
            r.posted = true;
            progress = true;
            for (Schedule::Transfer& t : s->transfers_of(r)) {
              if (!t.is_send) continue;
              const int dest = t.local ? c.job_ranks[std::size_t(t.peer)] : c.job_rank(t.peer);
              const auto* b = static_cast<const std::byte*>(t.buf);
              mail[{dest, c.coll_context(), c.rank, tag(*s, t)}].emplace_back(b, b + t.bytes);
              t.req.complete = true;
            }
          }
          bool all = true;
          for (Schedule::Transfer& t : s->transfers_of(r)) {
            if (t.is_send || t.req.complete) continue;
            auto& q = mail[{int(j), c.coll_context(), t.peer, tag(*s, t)}];
            if (q.empty()) {
              all = false;
              break;
            }
            if (q.front().size() != t.bytes)
              return "rank " + std::to_string(j) + ": message of " + std::to_string(q.front().size()) +
                     " bytes from " + std::to_string(t.peer) + " for a receive of " + std::to_string(t.bytes);
            if (t.bytes) std::memcpy(const_cast<void*>(t.buf), q.front().data(), t.bytes);
            q.pop_front();
            t.req.complete = true;
            progress = true;
          }
          if (!all) break;
          s->run_steps(r);
          r.steps = 0;
          ++s->current_;
          progress = true;
        }
        if (s->current_ < s->rounds_.size()) all_done = false;
        else s->done_ = true;
      }
      if (all_done) {
        for (auto& [key, q] : mail)
          if (!q.empty()) return "unreceived message for rank " + std::to_string(std::get<0>(key));
        return {};
      }
      if (!progress) return "deadlock";
    }
  }

  // Makes a finished schedule new again on `comm`, as the engine's pool does.
  static void reuse(Schedule& s, const core::Communicator& comm) { s.reset(nullptr, comm, Schedule::next_tag(comm)); }
  // Where its transfers and its scratch blocks are (a reused schedule keeps that memory).
  static const void* transfers_at(const Schedule& s) { return s.transfers_.data(); }
  static const void* scratch_at(const Schedule& s, std::size_t i) {
    return i < s.scratch_.size() ? s.scratch_[i].data() : nullptr;
  }

 private:
  static int tag(const Schedule& s, const Schedule::Transfer& t) { return t.local ? (s.tag_ | 0x10000000) : s.tag_; }
};

}  // namespace railmpi::coll
