// Field parsing: the fast float path must agree with std::from_chars bit for bit.
#include "io/scalar_parsing.h"

#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <random>

namespace ember {
namespace {

double reference(const std::string& s) {
  double d = 0;
  std::from_chars(s.data(), s.data() + s.size(), d);
  return d;
}

TEST(ScalarParsing, FloatFastPathMatchesFromChars) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    std::string s = (rng() % 2) ? "-" : "";
    const int int_digits = static_cast<int>(rng() % 10);
    const int frac_digits = static_cast<int>(rng() % 12);
    for (int d = 0; d < int_digits; ++d) s += char('0' + rng() % 10);
    if (frac_digits > 0 || int_digits == 0) {
      s += '.';
      for (int d = 0; d < std::max(frac_digits, 1); ++d) s += char('0' + rng() % 10);
    }
    double got = 0;
    ASSERT_TRUE(parse_float64(s, got)) << s;
    const double want = reference(s);
    ASSERT_EQ(std::memcmp(&got, &want, sizeof got), 0) << s;
  }
}

TEST(ScalarParsing, FloatFormsAndRejects) {
  double d = 0;
  for (const char* ok : {"1e5", "-2.5E-3", "inf", "-inf", "nan", "12345678901234567890.5", ".5"}) {
    EXPECT_TRUE(parse_float64(ok, d)) << ok;
    EXPECT_TRUE(std::isnan(reference(ok)) ? std::isnan(d) : d == reference(ok)) << ok;
  }
  for (const char* bad : {"", "-", ".", "1.2.3", "abc", " 1", "1 ", "+1", "1e999"}) {
    EXPECT_FALSE(parse_float64(bad, d)) << bad;
  }
}

TEST(ScalarParsing, IntsAndBools) {
  int64_t i = 0;
  EXPECT_TRUE(parse_int64("-9223372036854775808", i));
  EXPECT_EQ(i, INT64_MIN);
  EXPECT_FALSE(parse_int64("9223372036854775808", i));
  EXPECT_FALSE(parse_int64("1.0", i));
  EXPECT_FALSE(parse_int64("", i));
  bool b = false;
  EXPECT_TRUE(parse_bool("TrUe", b));
  EXPECT_TRUE(b);
  EXPECT_TRUE(parse_bool("FALSE", b));
  EXPECT_FALSE(b);
  EXPECT_FALSE(parse_bool("yes", b));
  EXPECT_FALSE(parse_bool("truee", b));
}

}  // namespace
}  // namespace ember
