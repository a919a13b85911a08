// The `self` device: frames a rank sends to itself. Zero-copy: a sent op is queued and delivered
// from its own header and payload in the next poll(), then completed. A gathered payload (a
// layout) is copied out of its runs into a scratch buffer: a placeable frame larger than
// kGatherChunk in parts of kGatherChunk bytes (FrameHandler::on_frame_part), so the scratch stays
// small; any other frame (eager sizes) whole.
#pragma once

#include <algorithm>
#include <cstring>
#include <vector>

#include "device/device.hpp"

namespace railmpi::device::self {

class SelfDevice final : public Device {
 public:
  explicit SelfDevice(int my_rank) : me_(my_rank) {}

  std::string_view name() const override { return "self"; }
  Figures figures() const override {
    return {.latency_us = 0.05, .bandwidth_mbs = 20000, .eager_limit = 64 * 1024,
            .max_payload = std::size_t{1} << 30, .single_copy = true};
  }
  std::string local_address() override { return "self"; }
  void connect(std::span<const PeerAddress>, Bootstrap) override {}
  void set_handler(FrameHandler handler) override { handler_ = handler; }

  SendResult send(int peer, SendOp& op) override {
    op.next = nullptr;
    if (tail_) tail_->next = &op; else head_ = &op;
    tail_ = &op;
    return SendResult::queued;
  }

  int poll() override {
    int events = 0;
    // Deliver only what was queued before this poll, so a handler that sends to self again
    // does not keep this loop going forever.
    SendOp* last = tail_;
    while (head_) {
      SendOp* op = head_;
      head_ = op->next;
      if (!head_) tail_ = nullptr;
      if (op->layout) [[unlikely]]
        deliver_gathered(*op);
      else
        handler_.on_frame(handler_.ctx, me_, {op->header.data(), op->header_len}, {op->payload, op->payload_len},
                          ReadHint::any);
      if (op->on_done) op->on_done(*op);
      ++events;
      if (op == last) break;
    }
    return events;
  }

  void wait(std::chrono::microseconds) override {}

  bool read_remote(int, std::uint64_t remote_addr, std::span<std::byte> dst) override {
    std::memcpy(dst.data(), reinterpret_cast<const void*>(remote_addr), dst.size());
    return true;
  }

  bool read_remote_layout(int, const base::Layout& remote, const base::Layout& local, std::size_t bytes) override {
    base::LayoutCursor from(remote, 0);
    std::size_t done = 0;
    while (done < bytes) {
      const auto run = from.next(bytes - done);
      if (run.empty()) return false;
      base::scatter(local, done, run);
      done += run.size();
    }
    return true;
  }

  bool idle() const override { return head_ == nullptr; }
  void shutdown() override {}

 private:
  static constexpr std::size_t kGatherChunk = 64 * 1024;

  void deliver_gathered(const SendOp& op) {
    const std::span<const std::byte> header{op.header.data(), op.header_len};
    if (op.placeable && op.payload_len > kGatherChunk && handler_.on_frame_part) {
      scratch_.resize(kGatherChunk);
      for (std::size_t at = 0; at < op.payload_len; at += kGatherChunk) {
        const std::size_t n = std::min(kGatherChunk, op.payload_len - at);
        base::gather(*op.layout, op.layout_offset + at, {scratch_.data(), n});
        handler_.on_frame_part(handler_.ctx, me_, header, at, {scratch_.data(), n});
      }
      return;
    }
    scratch_.resize(op.payload_len);
    base::gather(*op.layout, op.layout_offset, scratch_);
    handler_.on_frame(handler_.ctx, me_, header, scratch_, ReadHint::any);
  }

  int me_;
  FrameHandler handler_{};
  std::vector<std::byte> scratch_;
  SendOp* head_ = nullptr;
  SendOp* tail_ = nullptr;
};

}  // namespace railmpi::device::self
