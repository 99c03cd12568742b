// The Parquet encodings on their own: the RLE/bit-packed hybrid both ways over random runs, and
// the DELTA byte-array encodings on bytes built by hand from the format's description.
#include "io/parquet/parquet_encodings.h"

#include <gtest/gtest.h>

#include <random>

namespace ember::parquet {
namespace {

TEST(ParquetEncodings, RleHybridRoundTripsRunsAndNoise) {
  std::mt19937 rng(3);
  for (int width = 1; width <= 32; ++width) {  // each width has its own unpacking
    const uint32_t mask = width == 32 ? ~0u : (1u << width) - 1;
    std::vector<uint32_t> v;
    while (v.size() < 5000) {
      const uint32_t x = rng() & mask;
      const size_t run = rng() % 3 == 0 ? 1 + rng() % 40 : 1;
      v.insert(v.end(), run, x);
    }
    std::string bytes;
    encode_rle(v, width, &bytes);
    std::vector<uint32_t> back(v.size());
    decode_rle(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), width,
               static_cast<int64_t>(v.size()), back.data());
    EXPECT_EQ(back, v) << "width " << width;
  }
}

TEST(ParquetEncodings, DeltaByteArrayRebuildsFromPrefixes) {
  // Prefix lengths [0, 4] then suffix lengths [5, 1] (DELTA_BINARY_PACKED: block 128, 4
  // miniblocks, 2 values, first value, min delta, four zero bit widths), then "apple" "y".
  const uint8_t bytes[] = {0x80, 0x01, 0x04, 0x02, 0x00, 0x08, 0, 0, 0, 0,  // prefixes 0, 4
                           0x80, 0x01, 0x04, 0x02, 0x0a, 0x07, 0, 0, 0, 0,  // lengths 5, 1
                           'a',  'p',  'p',  'l',  'e',  'y'};
  ByteArrays out;
  decode_delta_byte_array(bytes, bytes + sizeof(bytes), 2, &out);
  ASSERT_EQ(out.size(), 2);
  EXPECT_EQ(std::string(out.bytes.data(), out.bytes.size()), "appleapply");
  ByteArrays truncated;
  EXPECT_THROW(decode_delta_byte_array(bytes, bytes + sizeof(bytes) - 2, 2, &truncated),
               std::runtime_error);
}

TEST(ParquetEncodings, CorruptRunsAreErrors) {
  const uint8_t bitpacked_past_end[] = {0x0b, 0xff};  // 5 groups of 8 claimed, 1 byte left
  std::vector<uint32_t> out(40);
  EXPECT_THROW(decode_rle(bitpacked_past_end, sizeof(bitpacked_past_end), 1, 40, out.data()),
               std::runtime_error);
  const uint8_t empty_run[] = {0x00, 0x01};
  EXPECT_THROW(decode_rle(empty_run, sizeof(empty_run), 1, 1, out.data()), std::runtime_error);
  // 2^61 groups of 8-bit values: their bytes, 2^64, wrap to 0 in 64 bits. The run is refused,
  // not read past the one byte that follows it.
  std::vector<uint8_t> wrapping;
  uint64_t header = (uint64_t{1} << 62) | 1;  // ULEB128: 7 bits a byte, the low ones first
  for (; header >= 0x80; header >>= 7) wrapping.push_back(static_cast<uint8_t>(header | 0x80));
  wrapping.push_back(static_cast<uint8_t>(header));
  wrapping.push_back(0x07);
  EXPECT_THROW(decode_rle(wrapping.data(), wrapping.size(), 8, 40, out.data()), std::runtime_error);
}

TEST(ParquetEncodings, DeltaMiniblockWhoseBitsEndInAPartByteIsReadWhole) {
  // Block of 1 value in 1 miniblock, 2 values: the first, then a delta of width 1, whose bit
  // lies in a byte the page lacks. (The spec's miniblocks hold multiples of 32 values.)
  const std::vector<uint8_t> page = {0x01, 0x01, 0x02, 0x00, 0x00, 0x01};
  const uint8_t* p = page.data();
  std::vector<int64_t> out;
  EXPECT_THROW(decode_delta_binary_packed(&p, page.data() + page.size(), 2, &out),
               std::runtime_error);
  // With the byte there, the two values decode.
  const std::vector<uint8_t> whole = {0x01, 0x01, 0x02, 0x0a, 0x02, 0x01, 0x01};
  p = whole.data();
  out.clear();
  decode_delta_binary_packed(&p, whole.data() + whole.size(), 2, &out);
  EXPECT_EQ(out, std::vector<int64_t>({5, 7}));  // 5, then 5 + min delta 1 + 1
}

}  // namespace
}  // namespace ember::parquet
