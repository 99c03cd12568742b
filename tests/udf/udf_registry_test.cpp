// The registry behind EMBER_REGISTER_UDF: lookup by type and by name, and name clashes.
#include <gtest/gtest.h>

#include "ember/udf.h"
#include "udf/udf_spec.h"

namespace ember_registry_test {

struct Registered {
  explicit Registered(const ember::InitArgs& a) : add(a.get<int64_t>("add")) {}
  ember::Column operator()(const ember::Batch& in) {
    std::vector<int64_t> out;
    for (int64_t i = 0; i < in.num_rows(); ++i) out.push_back(in.column(0).value<int64_t>(i) + add);
    return ember::Column::from(std::move(out));
  }
  int64_t add;
};
EMBER_REGISTER_UDF(Registered);
EMBER_REGISTER_UDF(Registered);  // a second registration of one type is harmless

struct NotRegistered {
  explicit NotRegistered(const ember::InitArgs&) {}
  ember::Column operator()(const ember::Batch& in) { return in.column(0); }
};

struct ClashA : NotRegistered {
  using NotRegistered::NotRegistered;
};
struct ClashB : NotRegistered {
  using NotRegistered::NotRegistered;
};

}  // namespace ember_registry_test

namespace ember {
namespace {

using namespace ember_registry_test;

TEST(UdfRegistry, FindsRegisteredClassesByTypeAndName) {
  EXPECT_EQ(detail::registered_udf_name(typeid(Registered)), "Registered");
  EXPECT_EQ(detail::registered_udf_name(typeid(NotRegistered)), "");
  EXPECT_EQ(detail::find_udf_factory("NoSuchUdf"), nullptr);

  const detail::UdfFactory* factory = detail::find_udf_factory("Registered");
  ASSERT_NE(factory, nullptr);
  auto instance = (*factory)(InitArgs{{"add", int64_t{10}}}, ActorContext{});
  Batch in(Schema({{"x", int64()}}), {Column::from(std::vector<int64_t>{1, 2})});
  Column out = instance->call(in);
  EXPECT_EQ(out.value<int64_t>(0), 11);
  EXPECT_EQ(out.value<int64_t>(1), 12);
}

TEST(UdfRegistry, BuilderRecordsTheRegisteredName) {
  Udf u = Udf::cls<Registered>("adder").returns(int64());
  EXPECT_EQ(detail::UdfAccess::spec(u)->class_name, "Registered");
  EXPECT_EQ(detail::UdfAccess::spec(u.isolation(Isolation::Process))->isolation,
            Isolation::Process);
  EXPECT_EQ(detail::UdfAccess::spec(Udf::cls<NotRegistered>("plain"))->class_name, "");
}

TEST(UdfRegistry, OneNameForTwoTypesIsReportedAtUse) {
  detail::register_udf_class("Clash", typeid(ClashA), detail::make_factory<ClashA>());
  detail::register_udf_class("Clash", typeid(ClashB), detail::make_factory<ClashB>());
  EXPECT_EQ(detail::find_udf_factory("Clash"), nullptr);
  try {
    Udf::cls<ClashB>("b").isolation(Isolation::Process);
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("EMBER_REGISTER_UDF(Clash) was used for two different "
                                         "types"),
              std::string::npos)
        << e.what();
  }
  // Thread isolation does not need the name.
  EXPECT_NO_THROW(Udf::cls<ClashA>("a").isolation(Isolation::Thread));
}

}  // namespace
}  // namespace ember
