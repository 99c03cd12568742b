// DataType, Schema, Value and Error tests.
#include "ember/types.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "core/cancelled.h"
#include "ember/error.h"

namespace ember {
namespace {

TEST(DataTypeTest, NamesAndEquality) {
  EXPECT_EQ(boolean().to_string(), "bool");
  EXPECT_EQ(int64().to_string(), "int64");
  EXPECT_EQ(float64().to_string(), "float64");
  EXPECT_EQ(utf8().to_string(), "utf8");
  EXPECT_EQ(DataType().to_string(), "null");
  EXPECT_EQ(list(int64()).to_string(), "list<int64>");
  EXPECT_EQ(list(list(utf8())).to_string(), "list<list<utf8>>");
  EXPECT_EQ(list(int64()), list(int64()));
  EXPECT_NE(list(int64()), list(float64()));
  EXPECT_NE(int64(), float64());
  EXPECT_EQ(list(utf8()).element(), utf8());
  EXPECT_EQ(int64().element(), DataType());
  EXPECT_TRUE(int64().is_numeric());
  EXPECT_FALSE(utf8().is_numeric());
}

TEST(SchemaTest, IndexOfAndToString) {
  Schema s({{"id", int64()}, {"name", utf8()}});
  EXPECT_EQ(s.index_of("id"), 0);
  EXPECT_EQ(s.index_of("name"), 1);
  EXPECT_EQ(s.index_of("nope"), -1);
  EXPECT_EQ(s.to_string(), "id: int64, name: utf8");
  EXPECT_EQ(Schema().to_string(), "");
}

TEST(ValueTest, TypeOfAndToString) {
  EXPECT_EQ(type_of(Value{}), DataType());
  EXPECT_EQ(type_of(Value{true}), boolean());
  EXPECT_EQ(type_of(Value{int64_t{3}}), int64());
  EXPECT_EQ(type_of(Value{2.5}), float64());
  EXPECT_EQ(type_of(Value{std::string("x")}), utf8());
  EXPECT_EQ(to_string(Value{}), "null");
  EXPECT_EQ(to_string(Value{true}), "true");
  EXPECT_EQ(to_string(Value{false}), "false");
  EXPECT_EQ(to_string(Value{int64_t{-42}}), "-42");
  EXPECT_EQ(to_string(Value{1.5}), "1.5");
  EXPECT_EQ(to_string(Value{std::string("abc")}), "abc");
}

TEST(ValueTest, DoublesRoundTripShortest) {
  for (double d : {0.1, 1.0 / 3.0, 1e300, -2.5e-300, 123456.789, 5e-324}) {
    const std::string s = to_string(Value{d});
    EXPECT_EQ(std::strtod(s.c_str(), nullptr), d) << s;
  }
  EXPECT_EQ(to_string(Value{0.1}), "0.1");
}

template <class E>
void expect_rethrown_as(ErrorCode code, ErrorCode expected) {
  try {
    throw_error(code, "boom");
  } catch (const E& e) {
    EXPECT_EQ(e.code(), expected);
    EXPECT_STREQ(e.what(), "boom");
    return;
  } catch (...) {
  }
  ADD_FAILURE() << "wrong exception type for code " << int(code);
}
template <class E>
void expect_rethrown_as(ErrorCode code) {
  expect_rethrown_as<E>(code, code);
}

TEST(ErrorTest, ThrowErrorReraisesMatchingSubtype) {
  expect_rethrown_as<ResourceError>(ErrorCode::Resource);
  expect_rethrown_as<UdfError>(ErrorCode::Udf);
  expect_rethrown_as<IoError>(ErrorCode::Io);
  expect_rethrown_as<ParseError>(ErrorCode::Parse);
  expect_rethrown_as<TypeError>(ErrorCode::Type);
  expect_rethrown_as<InvalidArgument>(ErrorCode::InvalidArgument);
  expect_rethrown_as<Cancelled>(kCancelledCode);
  expect_rethrown_as<Error>(ErrorCode::Internal);
  // A code from a newer peer degrades to the base type.
  expect_rethrown_as<Error>(static_cast<ErrorCode>(200), ErrorCode::Internal);
}

}  // namespace
}  // namespace ember
