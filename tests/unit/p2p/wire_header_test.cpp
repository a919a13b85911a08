// p2p::store_wire_header: the bytes it stores are the WireHeader's own (what the receiver reads
// back with memcpy), for negative fields and every byte of the 64-bit ones set.
#include "p2p/wire_header.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstring>

using railmpi::p2p::FrameKind;
using railmpi::p2p::store_wire_header;
using railmpi::p2p::WireHeader;

TEST(WireHeader, StoredWordsAreTheStructsBytes) {
  const WireHeader cases[] = {
      {FrameKind::eager, 0, 0, 0, 0, 0, 0, 0, 0},
      {FrameKind::rts, 0x0d, 0xbeef, -7, -1, -2147483647 - 1, 0x0102030405060708ull, 0xf0e0d0c0b0a09080ull,
       0xffffffffffffffffull},
      {FrameKind::fins, 0xff, 0xffff, 2147483647, 12345, 99, 1, 2, 3},
  };
  for (const WireHeader& h : cases) {
    alignas(16) std::array<std::byte, sizeof(WireHeader) + 8> stored;
    stored.fill(std::byte{0x5a});
    store_wire_header(stored.data(), h);
    WireHeader back;
    std::memcpy(&back, stored.data(), sizeof back);
    EXPECT_EQ(back.kind, h.kind);
    EXPECT_EQ(back.flags, h.flags);
    EXPECT_EQ(back.reserved, h.reserved);
    EXPECT_EQ(back.context, h.context);
    EXPECT_EQ(back.source, h.source);
    EXPECT_EQ(back.tag, h.tag);
    EXPECT_EQ(back.size, h.size);
    EXPECT_EQ(back.req, h.req);
    EXPECT_EQ(back.aux, h.aux);
    for (std::size_t i = sizeof(WireHeader); i < stored.size(); ++i)
      EXPECT_EQ(stored[i], std::byte{0x5a}) << "byte " << i << " past the header";
  }
}
