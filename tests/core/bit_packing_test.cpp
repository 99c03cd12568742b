// Bitmaps to 0/1 bytes and back, over lengths around the 8- and 64-byte steps of the packers.
#include "core/bit_packing.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "core/bitmap.h"

namespace ember {
namespace {

TEST(BitPackingTest, PackCountsOnesAndZeroesTheTail) {
  std::mt19937_64 rng(5);
  for (int64_t n : {0, 1, 7, 8, 9, 63, 64, 65, 127, 128, 1000}) {
    std::vector<uint8_t> bytes(static_cast<size_t>(n));
    int64_t ones = 0;
    for (auto& b : bytes) ones += b = uint8_t(rng() & 1);
    std::vector<uint8_t> bits(static_cast<size_t>(bitmap::bytes_for(n)), 0xff);
    EXPECT_EQ(bitmap::pack(bytes.data(), bits.data(), n), ones) << n;
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(get_bit(bits.data(), i), bytes[size_t(i)] == 1) << i;
    for (int64_t i = n; i < bitmap::bytes_for(n) * 8; ++i) ASSERT_FALSE(get_bit(bits.data(), i));
  }
}

TEST(BitPackingTest, UnpackReadsFromAnyBitOffset) {
  const std::vector<uint8_t> bits = {0b10110010, 0b01011101, 0b11100001};
  for (int64_t start : {0, 1, 5, 8, 11}) {
    const int64_t n = 24 - start;
    std::vector<uint8_t> out(static_cast<size_t>(n), 9);
    bitmap::unpack(bits.data(), start, out.data(), n);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(out[size_t(i)], get_bit(bits.data(), start + i) ? 1 : 0);
  }
}

}  // namespace
}  // namespace ember
