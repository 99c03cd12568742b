// The eight-digits-at-a-time parsers must accept exactly what the scalar ones accept and give
// the same values bit for bit, whatever bytes follow the field.
#include "io/padded_field_parsing.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

namespace ember {
namespace {

/// A field followed by `tail` (what the window holds after it: separators, digits, dots).
struct PaddedField {
  PaddedField(const std::string& field, const std::string& tail) : text(field + tail) {
    text.append(64, '7');
    view = std::string_view(text.data(), field.size());
  }
  std::string text;
  std::string_view view;
};

std::string random_number_text(std::mt19937_64& rng) {
  static const char kChars[] = "0123456789-.e+x ";
  std::string s;
  if (rng() % 3 == 0) s += '-';
  const int shape = static_cast<int>(rng() % 4);
  const size_t len = rng() % 20;
  for (size_t i = 0; i < len; ++i) {
    // Mostly digits with at most a dot, sometimes anything from the alphabet.
    s += shape == 0 ? kChars[rng() % (sizeof kChars - 1)] : char('0' + rng() % 10);
  }
  if (shape == 1 && !s.empty())
    s.insert(s.begin() + static_cast<std::ptrdiff_t>(rng() % s.size()), '.');
  return s;
}

void expect_same(const std::string& field, const std::string& tail) {
  const PaddedField f(field, tail);
  int64_t i_plain = 0, i_padded = 0;
  const bool i_ok = parse_int64(field, i_plain);
  ASSERT_EQ(parse_int64_padded(f.view, i_padded), i_ok) << "int '" << field << "'";
  if (i_ok) {
    ASSERT_EQ(i_padded, i_plain) << field;
  }
  double d_plain = 0, d_padded = 0;
  const bool d_ok = parse_float64(field, d_plain);
  ASSERT_EQ(parse_float64_padded(f.view, d_padded), d_ok) << "float '" << field << "'";
  if (d_ok) {
    ASSERT_EQ(std::memcmp(&d_plain, &d_padded, sizeof d_plain), 0) << field;
  }
}

TEST(PaddedFieldParsing, AgreesWithTheScalarParsersOnRandomText) {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 300000; ++i) {
    const std::string field = random_number_text(rng);
    const std::string tail = rng() % 2 ? ",1.5\n" : "9.9";
    expect_same(field, tail);
  }
}

TEST(PaddedFieldParsing, EdgeForms) {
  for (const char* s : {"",
                        "-",
                        ".",
                        "-.",
                        "0",
                        "-0",
                        "7",
                        "12345678",
                        "123456789",
                        "1234567890123456",
                        "12345678901234567",
                        "9223372036854775807",
                        "-9223372036854775808",
                        "9223372036854775808",
                        "00000000000000001",
                        ".5",
                        "5.",
                        "-0.0",
                        "12345678.1234567",
                        "1234567.12345678",
                        "12345678.12345678",
                        "123456789.5",
                        "0.123456789",
                        "1e5",
                        "1.5e3",
                        "inf",
                        "nan",
                        "1.2.3",
                        "1..2",
                        "--1",
                        "+1",
                        "1 ",
                        " 1",
                        "1,2",
                        "١"}) {
    SCOPED_TRACE(s);
    expect_same(s, ",");
    expect_same(s, "12345678901234567890");
    expect_same(s, ".........");
  }
}

TEST(PaddedFieldParsing, ValuesOfEveryDigitCount) {
  for (int digits = 1; digits <= 18; ++digits) {
    std::string s;
    for (int d = 0; d < digits; ++d) s += char('1' + d % 9);
    SCOPED_TRACE(s);
    int64_t v = 0;
    ASSERT_TRUE(parse_int64_padded(PaddedField(s, "\n").view, v));
    EXPECT_EQ(v, std::stoll(s));
    for (size_t dot = 0; dot <= s.size(); ++dot) {
      expect_same(s.substr(0, dot) + "." + s.substr(dot), "\n");
    }
  }
}

}  // namespace
}  // namespace ember
