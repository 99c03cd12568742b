// hash(): XXH64 of the documented bytes, so that anyone can reproduce a value; equal values
// hash equally across types that compare equal (-0.0 and 0.0, every NaN); splits are balanced.
#include <gtest/gtest.h>
#include <xxhash.h>

#include <cmath>
#include <cstring>

#include "ember/error.h"
#include "function_harness.h"

namespace ember {
namespace {

using testfn::eval;
using testfn::values;

// The documented recipe, written independently of the kernel: XXH64(seed 0) >> 1.
int64_t expected(const void* bytes, size_t n) { return int64_t(XXH64(bytes, n, 0) >> 1); }
int64_t expected_int(int64_t v) {
  unsigned char b[8];
  for (int k = 0; k < 8; ++k) b[k] = static_cast<unsigned char>(uint64_t(v) >> (8 * k));
  return expected(b, 8);
}

TEST(HashFunction, ReproducibleFromTheDocumentedBytes) {
  const Batch b = testfn::batch(
      {{"i", Column::from(std::vector<std::optional<int64_t>>{0, -1, INT64_MIN, std::nullopt})},
       {"s",
        Column::from(std::vector<std::optional<std::string>>{"", "héllo", "a", std::nullopt})}});
  const auto hi = values<int64_t>(eval(col("i").hash(), b));
  EXPECT_EQ(hi[0], expected_int(0));
  EXPECT_EQ(hi[1], expected_int(-1));
  EXPECT_EQ(hi[2], expected_int(INT64_MIN));
  EXPECT_EQ(hi[3], std::nullopt);
  const auto hs = values<int64_t>(eval(col("s").hash(), b));
  EXPECT_EQ(hs[0], expected("", 0));
  EXPECT_EQ(hs[1], expected("héllo", std::strlen("héllo")));
  for (size_t k = 0; k < 3; ++k) EXPECT_GE(*hs[k], 0);
}

TEST(HashFunction, EqualFloatsHashEqually) {
  const double nan2 = -std::nan("7");
  const Batch b =
      testfn::batch({{"x", Column::from(std::vector<double>{0.0, -0.0, std::nan(""), nan2, 1.5})},
                     {"f", Column::from(std::vector<float>{0.0f, -0.0f, NAN, NAN, 1.5f})},
                     {"n", Column::from(std::vector<int32_t>{0, 0, 0, 0, 7})}});
  const auto hx = values<int64_t>(eval(col("x").hash(), b));
  EXPECT_EQ(hx[0], hx[1]);
  EXPECT_EQ(hx[2], hx[3]);
  EXPECT_NE(hx[0], hx[4]);
  double one_half = 1.5;
  uint64_t bits;
  std::memcpy(&bits, &one_half, 8);
  EXPECT_EQ(hx[4], expected_int(int64_t(bits)));
  EXPECT_EQ(values<int64_t>(eval(col("f").hash(), b)), hx);  // float32 hashes as its float64
  EXPECT_EQ(values<int64_t>(eval(col("n").hash(), b))[4], expected_int(7));
}

TEST(HashFunction, SplitsEvenly) {
  std::vector<int64_t> ids(20000);
  for (size_t k = 0; k < ids.size(); ++k) ids[k] = int64_t(k);
  const Batch b = testfn::batch({{"id", Column::from(ids)}});
  const auto train = values<bool>(eval(col("id").hash() % 10 < 8, b));
  int64_t n = 0;
  for (const auto& t : train) n += *t;
  EXPECT_NEAR(double(n) / double(ids.size()), 0.8, 0.02);
}

TEST(HashFunction, ListsAreATypeError) {
  const Batch b = testfn::batch({{"l", Column::from(std::vector<std::vector<int64_t>>{{1}})}});
  EXPECT_THROW(testfn::type_of_expr(col("l").hash(), b), TypeError);
}

}  // namespace
}  // namespace ember
