// InitArgs: typed lookup, its errors, and the binary round trip (including corrupt input).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/udf.h"
#include "udf/init_args_codec.h"

namespace ember {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

TEST(InitArgs, GetHasAndWidening) {
  InitArgs a{
      {"dict", std::string("/usr/share/dict")}, {"n", int64_t{7}}, {"p", 0.25}, {"on", true}};
  EXPECT_EQ(a.get<std::string>("dict"), "/usr/share/dict");
  EXPECT_EQ(a.get<int64_t>("n"), 7);
  EXPECT_EQ(a.get<int>("n"), 7);
  EXPECT_DOUBLE_EQ(a.get<double>("n"), 7.0);  // integers widen to double
  EXPECT_DOUBLE_EQ(a.get<double>("p"), 0.25);
  EXPECT_TRUE(a.get<bool>("on"));
  EXPECT_TRUE(a.has("dict"));
  EXPECT_FALSE(a.has("dictionary"));
}

TEST(InitArgs, MissingKeyListsTheKeysThatExist) {
  InitArgs a{{"a", int64_t{1}}, {"b", int64_t{2}}};
  EXPECT_EQ(error_of([&] { a.get<std::string>("dict"); }),
            "missing init arg 'dict' (udf init args: a, b)");
  EXPECT_EQ(error_of([&] { InitArgs().get<int64_t>("x"); }),
            "missing init arg 'x' (udf init args: none)");
}

TEST(InitArgs, WrongTypeNamesBothTypes) {
  InitArgs a{{"a", int64_t{1}}, {"s", std::string("x")}};
  EXPECT_EQ(error_of([&] { a.get<std::string>("a"); }), "init arg 'a' is int64, not utf8");
  EXPECT_EQ(error_of([&] { a.get<double>("s"); }), "init arg 's' is utf8, not float64");
  EXPECT_EQ(error_of([&] { a.get<bool>("a"); }), "init arg 'a' is int64, not bool");
}

TEST(InitArgs, SerializeRoundTrip) {
  InitArgs a{{"null", Value{}},
             {"yes", true},
             {"no", false},
             {"min", std::numeric_limits<int64_t>::min()},
             {"max", std::numeric_limits<int64_t>::max()},
             {"pi", 3.141592653589793},
             {"neg0", -0.0},
             {"empty", std::string()},
             {"utf8", std::string("na\xc3\xafve \0 byte", 13)},
             {"", std::string("empty key")}};
  InitArgs b = deserialize_init_args(serialize_init_args(a));
  EXPECT_EQ(a.items(), b.items());
  EXPECT_TRUE(std::signbit(b.get<double>("neg0")));
  EXPECT_TRUE(deserialize_init_args(serialize_init_args(InitArgs())).items().empty());

  InitArgs nan{{"nan", std::nan("")}};
  EXPECT_TRUE(std::isnan(deserialize_init_args(serialize_init_args(nan)).get<double>("nan")));
}

TEST(InitArgs, EveryTruncationIsRejected) {
  std::string bytes = serialize_init_args(
      {{"k", std::string("value")}, {"n", int64_t{5}}, {"b", true}, {"d", 1.5}});
  for (size_t len = 0; len < bytes.size(); ++len)
    EXPECT_THROW(deserialize_init_args(std::string_view(bytes).substr(0, len)), InvalidArgument)
        << "prefix of " << len << " bytes";
}

TEST(InitArgs, CorruptBytesAreRejected) {
  std::string good = serialize_init_args(InitArgs{{"b", true}});
  // count(4) keylen(4) 'b' tag value
  std::string bad_tag = good;
  bad_tag[9] = 9;
  EXPECT_THROW(deserialize_init_args(bad_tag), InvalidArgument);
  std::string bad_bool = good;
  bad_bool[10] = 2;
  EXPECT_THROW(deserialize_init_args(bad_bool), InvalidArgument);
  EXPECT_THROW(deserialize_init_args(good + "x"), InvalidArgument);
  std::string huge_count = good;
  huge_count[3] = '\x7f';
  EXPECT_THROW(deserialize_init_args(huge_count), InvalidArgument);
  std::string long_key = good;
  long_key[7] = '\x7f';
  EXPECT_THROW(deserialize_init_args(long_key), InvalidArgument);
  // The same key twice cannot come from a map.
  std::string one = serialize_init_args(InitArgs{{"k", int64_t{1}}});
  std::string twice = one;
  twice[0] = 2;
  twice += one.substr(4);
  EXPECT_THROW(deserialize_init_args(twice), InvalidArgument);
}

}  // namespace
}  // namespace ember
