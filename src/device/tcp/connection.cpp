#include "device/tcp/connection.hpp"

#include <algorithm>
#include <cstring>

namespace railmpi::device::tcp {

void RecvBuffer::init() {
  if (data_) return;
  data_ = std::make_unique_for_overwrite<std::byte[]>(kInitialBytes);
  cap_ = kInitialBytes;
  begin_ = end_ = 0;
}

void RecvBuffer::make_room(std::size_t need) {
  if (cap_ - begin_ >= need && end_ < cap_) return;
  const std::size_t have = end_ - begin_;
  if (cap_ >= need && cap_ > have) {
    std::memmove(data_.get(), data_.get() + begin_, have);
  } else {
    const std::size_t new_cap = std::max({need, cap_ * 2, have + 1});
    auto bigger = std::make_unique_for_overwrite<std::byte[]>(new_cap);
    std::memcpy(bigger.get(), data_.get() + begin_, have);
    data_ = std::move(bigger);
    cap_ = new_cap;
  }
  begin_ = 0;
  end_ = have;
}

}  // namespace railmpi::device::tcp
