// The compress-by-bitmap kernel that every fixed-width filter uses: kept values in order, at
// any bit offset and density, and nothing written past them.
#include "core/fixed_width_compress.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "core/bitmap.h"

namespace ember {
namespace {

TEST(FixedWidthCompressTest, KeepsSelectedValuesInOrder) {
  std::mt19937_64 rng(3);
  for (int64_t start : {0, 1, 7, 13}) {
    for (int64_t n : {0, 1, 7, 8, 9, 63, 64, 65, 200, 1000}) {
      for (int density : {0, 1, 50, 99, 100}) {
        std::vector<int64_t> values(static_cast<size_t>(n));
        std::vector<uint8_t> bits(static_cast<size_t>((start + n + 7) / 8 + 1), 0);
        std::vector<int64_t> want;
        for (int64_t i = 0; i < n; ++i) {
          values[size_t(i)] = int64_t(rng());
          if (int(rng() % 100) < density) {
            set_bit(bits.data(), start + i);
            want.push_back(values[size_t(i)]);
          }
        }
        // One guard value after the kept ones: nothing may be written past them.
        std::vector<int64_t> out(want.size() + 1, 77);
        EXPECT_EQ(compress_fixed_width(values.data(), bits.data(), start, n, out.data()),
                  int64_t(want.size()));
        EXPECT_TRUE(std::equal(want.begin(), want.end(), out.begin()))
            << start << " " << n << " " << density;
        EXPECT_EQ(out.back(), 77);
      }
    }
  }
}

}  // namespace
}  // namespace ember
