// The UDF settings codec: every field of Udf::Spec survives encode/decode with values that are
// not the defaults, the factory is found again by class name, and a stateless UDF is refused.
#include "udf/udf_spec_codec.h"

#include <gtest/gtest.h>

#include "ember/udf.h"
#include "udf/portable_function.h"

namespace ember_spec_codec_test {

struct SpecCodecProbe {
  explicit SpecCodecProbe(const ember::InitArgs&) {}
  ember::Column operator()(const ember::Batch& in) { return in.column(0); }
};
EMBER_REGISTER_UDF(SpecCodecProbe);

struct UnregisteredProbe {
  explicit UnregisteredProbe(const ember::InitArgs&) {}
  ember::Column operator()(const ember::Batch& in) { return in.column(0); }
};

}  // namespace ember_spec_codec_test

namespace ember {
namespace {

using ember_spec_codec_test::SpecCodecProbe;
using ember_spec_codec_test::UnregisteredProbe;

// A field added to Udf::Spec changes its size: add it to udf_spec_codec.cpp, to every_field()
// and to expect_same_settings() below, then update this size (and the one in the codec).
// keep_alive is the one field never encoded (objects of this process).
#if defined(__GLIBCXX__) && defined(__x86_64__)
static_assert(sizeof(UdfSpec) == 424,
              "Udf::Spec changed: encode the new field in udf_spec_codec.cpp and round-trip it "
              "here with a value that is not its default, then update this size");
#endif

/// A spec with every serialisable field away from its default.
UdfSpec every_field() {
  UdfSpec s = *detail::UdfAccess::spec(
      Udf::cls<SpecCodecProbe>("probe")
          .returns(DataType::fixed_size_list_of(DataType::list_of(float32()), 3))
          .init_args(
              {{"path", std::string("/models/a")}, {"n", int64_t{-7}}, {"p", 0.25}, {"on", true}})
          .batch_size(123)
          .concurrency(2, 5)
          .num_cpus(1.5)
          .num_gpus(0.5)
          .memory_bytes(int64_t{3} << 30)
          .isolation(Isolation::Process)
          .max_retries(4)
          .retry_backoff(std::chrono::milliseconds(7), std::chrono::milliseconds(900))
          .on_error(OnError::Skip)
          .max_failed_rows(11)
          .timeout(std::chrono::milliseconds(2500))
          .max_concurrency(6));
  return s;
}

void expect_same_settings(const UdfSpec& a, const UdfSpec& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.stateful, b.stateful);
  EXPECT_EQ(a.class_name, b.class_name);
  ASSERT_EQ(a.return_type.has_value(), b.return_type.has_value());
  if (a.return_type) {
    EXPECT_EQ(a.return_type->to_string(), b.return_type->to_string());
    EXPECT_TRUE(*a.return_type == *b.return_type);
  }
  EXPECT_EQ(a.init_args.get<std::string>("path"), b.init_args.get<std::string>("path"));
  EXPECT_EQ(a.init_args.get<int64_t>("n"), b.init_args.get<int64_t>("n"));
  EXPECT_EQ(a.init_args.get<double>("p"), b.init_args.get<double>("p"));
  EXPECT_EQ(a.init_args.get<bool>("on"), b.init_args.get<bool>("on"));
  EXPECT_EQ(a.init_args.items().size(), b.init_args.items().size());
  EXPECT_EQ(a.batch_size, b.batch_size);
  EXPECT_EQ(a.concurrency, b.concurrency);
  EXPECT_EQ(a.max_actors, b.max_actors);
  EXPECT_EQ(a.num_cpus, b.num_cpus);
  EXPECT_EQ(a.num_cpus_set, b.num_cpus_set);
  EXPECT_EQ(a.num_gpus, b.num_gpus);
  EXPECT_EQ(a.memory_bytes, b.memory_bytes);
  EXPECT_EQ(a.isolation, b.isolation);
  EXPECT_EQ(a.max_retries, b.max_retries);
  EXPECT_EQ(a.retry_initial, b.retry_initial);
  EXPECT_EQ(a.retry_max, b.retry_max);
  EXPECT_EQ(a.on_error, b.on_error);
  EXPECT_EQ(a.max_failed_rows, b.max_failed_rows);
  EXPECT_EQ(a.timeout, b.timeout);
  EXPECT_EQ(a.max_concurrency, b.max_concurrency);
  EXPECT_EQ(a.portable_kind, b.portable_kind);
  EXPECT_EQ(a.portable_payload, b.portable_payload);
}

TEST(UdfSpecCodec, EveryFieldRoundTripsWithValuesThatAreNotTheDefaults) {
  const UdfSpec original = every_field();
  const UdfSpec defaults;
  // The spec really is away from every default, or the round trip below would prove nothing.
  EXPECT_NE(original.batch_size, defaults.batch_size);
  EXPECT_NE(original.concurrency, defaults.concurrency);
  EXPECT_NE(original.max_actors, defaults.max_actors);
  EXPECT_NE(original.num_cpus, defaults.num_cpus);
  EXPECT_NE(original.num_cpus_set, defaults.num_cpus_set);
  EXPECT_NE(original.num_gpus, defaults.num_gpus);
  EXPECT_NE(original.memory_bytes, defaults.memory_bytes);
  EXPECT_NE(original.isolation, defaults.isolation);
  EXPECT_NE(original.max_retries, defaults.max_retries);
  EXPECT_NE(original.retry_initial, defaults.retry_initial);
  EXPECT_NE(original.retry_max, defaults.retry_max);
  EXPECT_NE(original.on_error, defaults.on_error);
  EXPECT_NE(original.max_failed_rows, defaults.max_failed_rows);
  EXPECT_NE(original.timeout, defaults.timeout);
  EXPECT_NE(original.max_concurrency, defaults.max_concurrency);
  EXPECT_EQ(original.class_name, "SpecCodecProbe");

  const std::shared_ptr<UdfSpec> decoded = decode_udf_spec(encode_udf_spec(original));
  expect_same_settings(original, *decoded);
  // The factory is this binary's, found by class name: it constructs the same class.
  ASSERT_TRUE(decoded->factory);
  EXPECT_EQ(decoded->factory.target_type(), original.factory.target_type());
  // Encoding again gives the same bytes and the same pool key.
  EXPECT_EQ(encode_udf_spec(*decoded), encode_udf_spec(original));
  EXPECT_EQ(udf_pool_key(*decoded), udf_pool_key(original));
}

TEST(UdfSpecCodec, APortableFunctionTravelsAndIsRebuiltByTheMakerOfItsKind) {
  // The maker of a kind, as the Python module registers one for pickled functions: here the
  // payload says what to add.
  register_function_maker("test-add", [](std::string_view payload) {
    const int64_t add = std::stoll(std::string(payload));
    return PortableFunction([add](const Batch& b) {
      std::vector<int64_t> out;
      for (int64_t i = 0; i < b.num_rows(); ++i) out.push_back(b.column(0).value<int64_t>(i) + add);
      return Column::from(std::move(out));
    });
  });
  const Udf plain =
      Udf::fn("add", [](const Batch& b) { return b.column(0); }).returns(int64()).batch_size(77);
  const UdfSpec s = *detail::UdfAccess::spec(with_portable_function(plain, "test-add", "40"));
  EXPECT_FALSE(s.stateful);
  const std::shared_ptr<UdfSpec> decoded = decode_udf_spec(encode_udf_spec(s));
  EXPECT_FALSE(decoded->stateful);
  EXPECT_EQ(decoded->name, "add");
  ASSERT_TRUE(decoded->return_type.has_value());
  EXPECT_TRUE(*decoded->return_type == int64());
  EXPECT_EQ(decoded->batch_size, 77);
  EXPECT_EQ(decoded->portable_kind, "test-add");
  EXPECT_EQ(decoded->portable_payload, "40");
  ASSERT_TRUE(decoded->function);
  const Batch two(Schema({{"x", int64()}}), {Column::from(std::vector<int64_t>{1, 2})});
  const Column out = decoded->function(two);
  EXPECT_EQ(out.value<int64_t>(0), 41);
  EXPECT_EQ(out.value<int64_t>(1), 42);
  // A process without the maker says so instead of running something else.
  UdfSpec unknown = s;
  unknown.portable_kind = "no-such-kind";
  EXPECT_THROW(decode_udf_spec(encode_udf_spec(unknown)), InvalidArgument);
  // A class is no function.
  EXPECT_THROW(with_portable_function(Udf::cls<SpecCodecProbe>("c"), "test-add", "1"),
               InvalidArgument);
}

TEST(UdfSpecCodec, NoReturnTypeAndNoInitArgsRoundTrip) {
  const UdfSpec s = *detail::UdfAccess::spec(Udf::cls<SpecCodecProbe>("bare"));
  const std::shared_ptr<UdfSpec> decoded = decode_udf_spec(encode_udf_spec(s));
  EXPECT_FALSE(decoded->return_type.has_value());
  EXPECT_EQ(decoded->init_args.items().size(), 0u);
  EXPECT_EQ(decoded->name, "bare");
}

TEST(UdfSpecCodec, AStatelessUdfCannotTravel) {
  const UdfSpec s =
      *detail::UdfAccess::spec(Udf::fn("lambda", [](const Batch& b) { return b.column(0); }));
  try {
    encode_udf_spec(s);
    FAIL() << "a stateless UDF was encoded";
  } catch (const UdfError& e) {
    EXPECT_NE(std::string(e.what()).find("udf 'lambda' is stateless"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("EMBER_REGISTER_UDF"), std::string::npos) << e.what();
  }
}

TEST(UdfSpecCodec, AClassNotRegisteredHereIsNamed) {
  const UdfSpec s = *detail::UdfAccess::spec(Udf::cls<UnregisteredProbe>("elsewhere"));
  UdfSpec renamed = s;
  renamed.class_name = "OnlyInTheOtherBinary";
  try {
    decode_udf_spec(encode_udf_spec(renamed));
    FAIL() << "decoded a class this binary does not register";
  } catch (const UdfError& e) {
    EXPECT_NE(std::string(e.what()).find("class 'OnlyInTheOtherBinary' is not registered"),
              std::string::npos)
        << e.what();
  }
}

TEST(UdfSpecCodec, CorruptBytesAreAnErrorNotACrash) {
  const std::string bytes = encode_udf_spec(every_field());
  for (size_t cut = 0; cut < bytes.size(); ++cut)
    EXPECT_THROW(decode_udf_spec(std::string_view(bytes).substr(0, cut)), Error) << cut;
  EXPECT_THROW(decode_udf_spec(bytes + "x"), Error);
  std::string wrong_version = bytes;
  wrong_version[0] = 99;
  EXPECT_THROW(decode_udf_spec(wrong_version), Error);
}

TEST(UdfSpecCodec, PoolKeyTellsApartEverySetting) {
  const UdfSpec base = every_field();
  const std::string key = udf_pool_key(base);
  auto differs = [&](auto change) {
    UdfSpec s = base;
    change(s);
    return udf_pool_key(s) != key;
  };
  EXPECT_TRUE(differs([](UdfSpec& s) { s.timeout = std::chrono::milliseconds(1); }));
  EXPECT_TRUE(differs([](UdfSpec& s) { s.max_concurrency = 1; }));
  EXPECT_TRUE(differs([](UdfSpec& s) { s.max_failed_rows = 12; }));
  EXPECT_TRUE(differs([](UdfSpec& s) { s.num_cpus_set = false; }));
  EXPECT_TRUE(differs([](UdfSpec& s) { s.init_args = InitArgs{{"n", int64_t{1}}}; }));
  // The very factory counts, not only the name it was registered under.
  EXPECT_TRUE(differs([](UdfSpec& s) {
    s.factory = detail::UdfAccess::spec(Udf::cls<UnregisteredProbe>("x"))->factory;
  }));
}

TEST(UdfSpecCodec, DescribeNamesTheSettingsAPoolActsOn) {
  EXPECT_EQ(describe_udf_spec(every_field()),
            "probe: concurrency 2..5 (autoscaling: min 2 reserved, grows to max 5 when free), "
            "batch size 123, per actor 1.5 CPU, 0.5 GPU, 3 GiB memory, isolation process, "
            "max_retries 4, on_error skip, retry_backoff 7 ms -> 900 ms, max_failed_rows 11, "
            "timeout 2500 ms, max_concurrency 6");
}

}  // namespace
}  // namespace ember
