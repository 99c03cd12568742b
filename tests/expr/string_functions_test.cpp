// Text functions: code-point lengths and slices over multi-byte UTF-8, Unicode case mapping,
// search and replacement, splitting, padding, concatenation, regexes, nulls and type errors.
#include <gtest/gtest.h>

#include <cctype>

#include "ember/error.h"
#include "function_harness.h"

namespace ember {
namespace {

using testfn::eval;
using testfn::values;
using S = std::optional<std::string>;

Batch texts() {
  return testfn::batch(
      {{"s", Column::from(std::vector<S>{"Hello", "", std::nullopt, "héllo wörld", "ÀÉÎ straße",
                                         "日本語テキスト", "a,b,,c"})}});
}

TEST(StringFunctions, LengthCountsCodePoints) {
  const auto got = values<int64_t>(eval(col("s").str_length(), texts()));
  const std::vector<std::optional<int64_t>> want = {5, 0, std::nullopt, 11, 10, 7, 6};
  EXPECT_EQ(got, want);
}

TEST(StringFunctions, CaseMappingIsUnicode) {
  EXPECT_EQ(values<std::string>(eval(col("s").str_lower(), texts())),
            (std::vector<S>{"hello", "", std::nullopt, "héllo wörld", "àéî straße",
                            "日本語テキスト", "a,b,,c"}));
  // Case mapping goes code point to code point: ß becomes the capital sharp s ẞ, not "SS".
  EXPECT_EQ(values<std::string>(eval(col("s").str_upper(), texts()))[3], S("HÉLLO WÖRLD"));
  EXPECT_EQ(values<std::string>(eval(col("s").str_upper(), texts()))[4], S("ÀÉÎ STRAẞE"));
}

TEST(StringFunctions, SearchPredicates) {
  const Batch b = texts();
  using B = std::optional<bool>;
  EXPECT_EQ(values<bool>(eval(col("s").str_contains("ll"), b)),
            (std::vector<B>{true, false, std::nullopt, true, false, false, false}));
  EXPECT_EQ(values<bool>(eval(col("s").str_contains(""), b)),
            (std::vector<B>{true, true, std::nullopt, true, true, true, true}));
  EXPECT_EQ(values<bool>(eval(col("s").str_starts_with("日本"), b)),
            (std::vector<B>{false, false, std::nullopt, false, false, true, false}));
  EXPECT_EQ(values<bool>(eval(col("s").str_ends_with("wörld"), b)),
            (std::vector<B>{false, false, std::nullopt, true, false, false, false}));
}

TEST(StringFunctions, ReplaceSliceStripPad) {
  const Batch b = testfn::batch(
      {{"s", Column::from(std::vector<S>{"  aXbXc \t", "日本語", std::nullopt, ""})}});
  EXPECT_EQ(values<std::string>(eval(col("s").str_replace("X", "--"), b)),
            (std::vector<S>{"  a--b--c \t", "日本語", std::nullopt, ""}));
  EXPECT_EQ(values<std::string>(eval(col("s").str_replace("", "!"), b))[0], S("  aXbXc \t"));
  EXPECT_EQ(values<std::string>(eval(col("s").str_slice(1, 2), b)),
            (std::vector<S>{" a", "本語", std::nullopt, ""}));
  EXPECT_EQ(values<std::string>(eval(col("s").str_slice(-2, 5), b))[1], S("本語"));
  EXPECT_EQ(values<std::string>(eval(col("s").str_slice(10, 5), b))[1], S(""));
  EXPECT_EQ(values<std::string>(eval(col("s").str_strip(), b)),
            (std::vector<S>{"aXbXc", "日本語", std::nullopt, ""}));
  EXPECT_EQ(values<std::string>(eval(col("s").str_pad(5, "·"), b))[1], S("··日本語"));
  EXPECT_EQ(values<std::string>(eval(col("s").str_pad(4, "*", true), b))[3], S("****"));
  EXPECT_EQ(values<std::string>(eval(col("s").str_pad(2), b))[1], S("日本語"));  // kept whole
}

TEST(StringFunctions, SplitGivesListsOfText) {
  const Batch b =
      testfn::batch({{"s", Column::from(std::vector<S>{"a,b,,c", "", std::nullopt, "日本"})}});
  const Column by_comma = eval(col("s").str_split(","), b);
  ASSERT_EQ(by_comma.type(), list(utf8()));
  EXPECT_EQ(by_comma.get(0), Value(List{{Value{"a"}, Value{"b"}, Value{""}, Value{"c"}}, utf8()}));
  EXPECT_EQ(by_comma.get(1), Value(List{{Value{""}}, utf8()}));
  EXPECT_TRUE(by_comma.is_null(2));
  const Column chars = eval(col("s").str_split(""), b);
  EXPECT_EQ(chars.get(3), Value(List{{Value{"日"}, Value{"本"}}, utf8()}));
  EXPECT_EQ(chars.get(1), Value(List{{}, utf8()}));
}

TEST(StringFunctions, ConcatIsNullWhereAnyPartIsNull) {
  const Batch b = testfn::batch({{"a", Column::from(std::vector<S>{"x", std::nullopt, ""})},
                                 {"b", Column::from(std::vector<S>{"ü", "y", ""})}});
  EXPECT_EQ(values<std::string>(eval(concat({col("a"), lit("-"), col("b")}), b)),
            (std::vector<S>{"x-ü", std::nullopt, "-"}));
}

TEST(StringFunctions, RegularExpressions) {
  const Batch b = testfn::batch(
      {{"s", Column::from(std::vector<S>{"order 42 of 7", "none", std::nullopt, "é99"})}});
  using B = std::optional<bool>;
  EXPECT_EQ(values<bool>(eval(col("s").str_match("[0-9]+"), b)),
            (std::vector<B>{true, false, std::nullopt, true}));
  EXPECT_EQ(values<std::string>(eval(col("s").str_extract("([a-z]+) ([0-9]+)", 2), b)),
            (std::vector<S>{"42", std::nullopt, std::nullopt, std::nullopt}));
  EXPECT_EQ(values<std::string>(eval(col("s").str_extract("[0-9]+"), b))[3], S("99"));
  EXPECT_EQ(values<std::string>(eval(col("s").str_replace_regex("([0-9]+)", "<\\1>"), b)),
            (std::vector<S>{"order <42> of <7>", "none", std::nullopt, "é<99>"}));
}

TEST(StringFunctions, BadPatternIsInvalidArgumentNamingIt) {
  const Batch b = texts();
  try {
    testfn::type_of_expr(col("s").str_match("(unclosed"), b);
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("(unclosed"), std::string::npos) << e.what();
  }
  EXPECT_THROW(testfn::type_of_expr(col("s").str_extract("(a)", 2), b), InvalidArgument);
  EXPECT_THROW(testfn::type_of_expr(col("s").str_replace_regex("a", "\\3"), b), InvalidArgument);
  EXPECT_THROW(testfn::type_of_expr(col("s").str_slice(0, -1), b), InvalidArgument);
  EXPECT_THROW(testfn::type_of_expr(col("s").str_pad(3, "ab"), b), InvalidArgument);
}

TEST(StringFunctions, TypeErrorNamesFunctionAndTypes) {
  const Batch b = testfn::batch({{"n", Column::from(std::vector<int64_t>{1})}});
  try {
    testfn::type_of_expr(col("n").str_lower(), b);
    FAIL() << "expected TypeError";
  } catch (const TypeError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("str_lower()"), std::string::npos) << m;
    EXPECT_NE(m.find("int64"), std::string::npos) << m;
  }
  EXPECT_THROW(testfn::type_of_expr(concat({col("n"), lit("x")}), b), TypeError);
}

TEST(StringFunctions, PrintedAsWritten) {
  EXPECT_EQ(col("s").str_replace("a", "b").to_string(), "s.str_replace(\"a\", \"b\")");
  EXPECT_EQ(concat({col("a"), lit("-")}).to_string(), "concat(a, \"-\")");
}

TEST(StringFunctions, SlicedInputKeepsRows) {
  const Column all = Column::from(std::vector<S>{"skip", "ÄB", std::nullopt, "cd"});
  const Batch b = testfn::batch({{"s", all.slice(1, 3)}});
  EXPECT_EQ(values<std::string>(eval(col("s").str_lower(), b)),
            (std::vector<S>{"äb", std::nullopt, "cd"}));
  EXPECT_EQ(values<int64_t>(eval(col("s").str_length(), b)),
            (std::vector<std::optional<int64_t>>{2, std::nullopt, 2}));
}

// All-ASCII columns take whole-buffer paths: case mapping in one pass, contains as one search
// through every row's characters. A hit that runs across two rows matches neither; slices and
// nulls keep their rows; the result equals the row-by-row one.
TEST(StringFunctions, WholeColumnPathsKeepRowsApart) {
  const Column all = Column::from(
      std::vector<S>{"xxab", "cdAB", "ab", std::nullopt, "", "zza", "bq", "Tab!", "abab"});
  for (int64_t from : {0, 1, 2}) {
    const Column part = all.slice(from, all.size() - from);
    const Batch b = testfn::batch({{"s", part}});
    const auto got = values<bool>(eval(col("s").str_contains("ab"), b));
    const auto lower = values<std::string>(eval(col("s").str_lower(), b));
    const auto upper = values<std::string>(eval(col("s").str_upper(), b));
    for (int64_t i = 0; i < part.size(); ++i) {
      if (part.is_null(i)) {
        EXPECT_EQ(got[size_t(i)], std::nullopt);
        EXPECT_EQ(lower[size_t(i)], std::nullopt);
        continue;
      }
      const std::string v(part.value<std::string_view>(i));
      EXPECT_EQ(got[size_t(i)], std::optional(v.find("ab") != std::string::npos)) << v;
      std::string lo = v, up = v;
      for (char& c : lo) c = char(std::tolower(static_cast<unsigned char>(c)));
      for (char& c : up) c = char(std::toupper(static_cast<unsigned char>(c)));
      EXPECT_EQ(lower[size_t(i)], S(lo));
      EXPECT_EQ(upper[size_t(i)], S(up));
    }
  }
  // "zza" + "bq": the characters run together as "zzabq", yet neither row contains "ab".
  const Batch b = testfn::batch({{"s", all}});
  const auto got = values<bool>(eval(col("s").str_contains("ab"), b));
  EXPECT_EQ(got[5], std::optional(false));
  EXPECT_EQ(got[6], std::optional(false));
  EXPECT_EQ(values<bool>(eval(col("s").str_contains("abab!"), b))[8], std::optional(false));
}

}  // namespace
}  // namespace ember
