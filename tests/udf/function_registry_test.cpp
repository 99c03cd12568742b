// The registry behind EMBER_REGISTER_FN: a registered plain function travels by name (as the
// cluster runner sends it to other ranks), anything else stays where it was made.
#include "udf/function_registry.h"

#include <gtest/gtest.h>

#include "ember/error.h"
#include "ember/udf.h"
#include "udf/portable_function.h"
#include "udf/udf_access.h"
#include "udf/udf_spec.h"
#include "udf/udf_spec_codec.h"

namespace ember_function_registry_test {

ember::Column plus_one(const ember::Batch& in) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < in.num_rows(); ++i) out.push_back(in.column(0).value<int64_t>(i) + 1);
  return ember::Column::from(std::move(out));
}
EMBER_REGISTER_FN(plus_one);
EMBER_REGISTER_FN(plus_one);  // a second registration of one function is harmless

ember::Column not_registered(const ember::Batch& in) { return in.column(0); }

// Two functions under one name: neither may travel under it.
namespace first {
ember::Column clash(const ember::Batch& in) { return in.column(0); }
EMBER_REGISTER_FN(clash);
}  // namespace first
namespace second {
ember::Column clash(const ember::Batch& in) { return in.column(0); }
EMBER_REGISTER_FN(clash);
}  // namespace second

}  // namespace ember_function_registry_test

namespace ember {
namespace {

using namespace ember_function_registry_test;

const Batch kTwo(Schema({{"x", int64()}}), {Column::from(std::vector<int64_t>{1, 2})});

TEST(FunctionRegistry, ARegisteredFunctionTravelsByNameAndIsRebuilt) {
  const Udf udf = Udf::fn("inc", plus_one).returns(int64()).batch_size(10);
  const UdfSpec& spec = *detail::UdfAccess::spec(udf);
  EXPECT_EQ(spec.portable_kind, kRegisteredFunctionKind);
  EXPECT_EQ(spec.portable_payload, "plus_one");
  const std::shared_ptr<UdfSpec> decoded = decode_udf_spec(encode_udf_spec(spec));
  EXPECT_EQ(decoded->name, "inc");
  EXPECT_EQ(decoded->batch_size, 10);
  ASSERT_TRUE(decoded->function);
  const Column out = decoded->function(kTwo);
  EXPECT_EQ(out.value<int64_t>(0), 2);
  EXPECT_EQ(out.value<int64_t>(1), 3);
}

TEST(FunctionRegistry, LambdasAndUnregisteredFunctionsDoNotTravel) {
  EXPECT_EQ(detail::UdfAccess::spec(Udf::fn("plain", not_registered))->portable_kind, "");
  const int64_t add = 5;
  const Udf lambda = Udf::fn("lambda", [add](const Batch& b) {
    (void)add;
    return b.column(0);
  });
  EXPECT_EQ(detail::UdfAccess::spec(lambda)->portable_kind, "");
  // A captureless lambda is no registered function either, even wrapping one.
  EXPECT_EQ(detail::UdfAccess::spec(Udf::fn("wrapped", [](const Batch& b) { return plus_one(b); }))
                ->portable_kind,
            "");
}

TEST(FunctionRegistry, AnUnknownNameIsAnErrorWhereItIsRebuilt) {
  try {
    make_portable_function(kRegisteredFunctionKind, "no_such_function");
    FAIL() << "an unknown function was rebuilt";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("'no_such_function'"), std::string::npos) << e.what();
  }
}

TEST(FunctionRegistry, OneNameForTwoFunctionsIsAnErrorAtUdfFn) {
  try {
    Udf::fn("either", first::clash);
    FAIL() << "a clashing name was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("udf 'either'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'clash'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Udf::fn("or", second::clash), InvalidArgument);
  EXPECT_THROW(make_portable_function(kRegisteredFunctionKind, "clash"), InvalidArgument);
}

}  // namespace
}  // namespace ember
