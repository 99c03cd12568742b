// fill_sequence: consecutive ids from any start, including across INT64 extremes' neighbours.
#include "core/sequence.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace ember {
namespace {

TEST(SequenceTest, FillsConsecutiveValues) {
  for (int64_t first : {int64_t{0}, int64_t{-5}, std::numeric_limits<int64_t>::max() - 300}) {
    std::vector<int64_t> out(300);
    fill_sequence(first, out.data(), 300);
    for (int64_t i = 0; i < 300; ++i) ASSERT_EQ(out[size_t(i)], first + i);
  }
}

}  // namespace
}  // namespace ember
