// The Udf builder: defaults, immutability and every validation error.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>

#include "ember/udf.h"
#include "udf/udf_spec.h"

namespace ember {
namespace {

struct Echo {
  explicit Echo(const InitArgs&) {}
  Column operator()(const Batch& in) { return in.column(0); }
};

Udf stateful() { return Udf::cls<Echo>("echo"); }
Udf stateless() {
  return Udf::fn("twice", [](const Batch& in) { return in.column(0); });
}

/// The InvalidArgument message `f` throws, or "" if it does not throw.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

bool mentions(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(UdfBuilder, Defaults) {
  Udf cls = stateful();
  const UdfSpec& s = *detail::UdfAccess::spec(cls);
  EXPECT_TRUE(s.stateful);
  EXPECT_EQ(s.name, "echo");
  EXPECT_EQ(s.batch_size, 4096);
  EXPECT_EQ(s.concurrency, 1);
  EXPECT_EQ(s.num_cpus, 0) << "unset, an actor reserves no CPU";
  EXPECT_FALSE(s.num_cpus_set);
  EXPECT_EQ(s.num_gpus, 0);
  EXPECT_EQ(s.memory_bytes, 0);
  EXPECT_EQ(s.isolation, Isolation::Thread);
  EXPECT_EQ(s.max_retries, 0);
  EXPECT_EQ(s.retry_initial, std::chrono::milliseconds(100));
  EXPECT_EQ(s.retry_max, std::chrono::milliseconds(10000));
  EXPECT_EQ(s.on_error, OnError::Raise);
  EXPECT_EQ(s.max_failed_rows, std::numeric_limits<int64_t>::max());
  EXPECT_FALSE(s.return_type.has_value());

  Udf fn = stateless();
  const UdfSpec& f = *detail::UdfAccess::spec(fn);
  EXPECT_FALSE(f.stateful);
  EXPECT_EQ(f.num_cpus, 0);
  EXPECT_TRUE(static_cast<bool>(f.function));
  EXPECT_EQ(stateless().name(), "twice");
}

TEST(UdfBuilder, SettersReturnChangedCopies) {
  Udf base = stateful();
  Udf tuned = base.returns(int64())
                  .init_args({{"k", int64_t{1}}})
                  .batch_size(512)
                  .concurrency(3)
                  .num_cpus(0.5)
                  .num_gpus(0.25)
                  .memory_bytes(1 << 20)
                  .max_retries(2);
  EXPECT_EQ(detail::UdfAccess::spec(base)->concurrency, 1);
  EXPECT_FALSE(detail::UdfAccess::spec(base)->return_type.has_value());
  const UdfSpec& s = *detail::UdfAccess::spec(tuned);
  EXPECT_EQ(*s.return_type, int64());
  EXPECT_EQ(s.init_args.get<int64_t>("k"), 1);
  EXPECT_EQ(s.batch_size, 512);
  EXPECT_EQ(s.concurrency, 3);
  EXPECT_EQ(s.num_cpus, 0.5);
  EXPECT_EQ(s.num_gpus, 0.25);
  EXPECT_EQ(s.memory_bytes, 1 << 20);
  EXPECT_EQ(s.max_retries, 2);
  EXPECT_EQ(detail::UdfAccess::spec(stateful().num_gpus(2))->num_gpus, 2);
  EXPECT_EQ(
      detail::UdfAccess::spec(stateless().batch_size(7).num_cpus(2).memory_bytes(5))->batch_size,
      7);
}

TEST(UdfBuilder, RejectsBadNumbers) {
  const double nan = std::nan("");
  const double inf = std::numeric_limits<double>::infinity();
  auto expect = [](const std::string& msg, const std::string& part) {
    EXPECT_TRUE(mentions(msg, "udf 'echo'")) << msg;
    EXPECT_TRUE(mentions(msg, part)) << msg;
  };
  expect(error_of([&] { stateful().concurrency(0); }), "concurrency must be at least 1");
  expect(error_of([&] { stateful().concurrency(std::numeric_limits<int>::max()); }),
         "concurrency must be at most 4096 actors");
  expect(error_of([&] { stateful().batch_size(0); }), "batch_size must be at least 1");
  expect(error_of([&] { stateful().batch_size(-5); }), "got -5");
  expect(error_of([&] { stateful().num_cpus(-1); }), "num_cpus must be");
  expect(error_of([&] { stateful().num_cpus(nan); }), "num_cpus must be");
  expect(error_of([&] { stateful().num_cpus(inf); }), "num_cpus must be");
  expect(error_of([&] { stateful().num_cpus(-inf); }), "num_cpus must be");
  expect(error_of([&] { stateful().num_gpus(-0.5); }), "num_gpus must be");
  expect(error_of([&] { stateful().num_gpus(inf); }), "num_gpus must be");
  expect(error_of([&] { stateful().num_gpus(nan); }), "num_gpus must be");
  expect(error_of([&] { stateful().num_gpus(1.5); }), "whole number");
  expect(error_of([&] { stateful().memory_bytes(-1); }), "memory_bytes must be >= 0");
  expect(error_of([&] { stateful().max_retries(-1); }), "max_retries must be >= 0");
  expect(error_of([&] { stateful().returns(DataType()); }), "concrete type");
  // Large but well-formed requests are the admission's to refuse, with a ResourceError that
  // says what exists; the builder only rejects what is malformed.
  EXPECT_EQ(detail::UdfAccess::spec(stateful().num_cpus(1e300))->num_cpus, 1e300);
  EXPECT_EQ(detail::UdfAccess::spec(stateful().num_gpus(1e9))->num_gpus, 1e9);
  EXPECT_EQ(detail::UdfAccess::spec(stateful().memory_bytes(std::numeric_limits<int64_t>::max()))
                ->memory_bytes,
            std::numeric_limits<int64_t>::max());
}

TEST(UdfBuilder, ActorSettingsOnAStatelessUdfSayTheyNeedAClass) {
  for (auto& [setting, f] : std::vector<std::pair<std::string, std::function<void()>>>{
           {"concurrency", [] { stateless().concurrency(2); }},
           {"isolation", [] { stateless().isolation(Isolation::Thread); }},
           {"num_gpus", [] { stateless().num_gpus(1); }},
           {"init_args", [] { stateless().init_args({}); }},
           {"max_retries", [] { stateless().max_retries(1); }},
           {"on_error", [] { stateless().on_error(OnError::Null); }},
           {"max_failed_rows", [] { stateless().max_failed_rows(1); }},
           {"retry_backoff",
            [] {
              stateless().retry_backoff(std::chrono::milliseconds(1), std::chrono::milliseconds(2));
            }},
       }) {
    std::string msg = error_of(f);
    EXPECT_TRUE(mentions(msg, "udf 'twice' is stateless (Udf::fn), and ." + setting +
                                  "() applies only to stateful UDFs"))
        << msg;
  }
}

TEST(UdfBuilder, FailurePolicySettersValidateAndRecord) {
  using std::chrono::milliseconds;
  auto expect = [](const std::string& msg, const std::string& part) {
    EXPECT_TRUE(mentions(msg, "udf 'echo'")) << msg;
    EXPECT_TRUE(mentions(msg, part)) << msg;
  };
  const Udf udf = stateful()
                      .on_error(OnError::Skip)
                      .retry_backoff(milliseconds(20), milliseconds(80))
                      .max_failed_rows(7)
                      .num_cpus(2);
  const UdfSpec& s = *detail::UdfAccess::spec(udf);  // `udf` keeps the spec alive
  EXPECT_EQ(s.on_error, OnError::Skip);
  EXPECT_EQ(s.retry_initial, milliseconds(20));
  EXPECT_EQ(s.retry_max, milliseconds(80));
  EXPECT_EQ(s.max_failed_rows, 7);
  EXPECT_TRUE(s.num_cpus_set) << "an explicit num_cpus is admitted strictly";
  EXPECT_EQ(s.num_cpus, 2);
  expect(error_of([&] { stateful().retry_backoff(milliseconds(50), milliseconds(10)); }),
         "retry_backoff needs 0 <= initial <= max, got 50 ms and 10 ms");
  expect(error_of([&] { stateful().retry_backoff(milliseconds(-1), milliseconds(10)); }),
         "retry_backoff needs 0 <= initial <= max");
  expect(error_of([&] { stateful().max_failed_rows(-1); }), "max_failed_rows must be >= 0");
}

struct Concurrent {
  explicit Concurrent(const InitArgs&) {}
  Column operator()(const Batch& in) { return in.column(0); }
};
EMBER_REGISTER_UDF(Concurrent);

TEST(UdfBuilder, TimeoutAndMaxConcurrencyValidateAndRecord) {
  using std::chrono::milliseconds;
  const Udf udf = Udf::cls<Concurrent>("conc").timeout(milliseconds(250)).max_concurrency(8);
  const UdfSpec& s = *detail::UdfAccess::spec(udf);
  EXPECT_EQ(s.timeout, milliseconds(250));
  EXPECT_EQ(s.max_concurrency, 8);
  const Udf plain = stateful();  // the spec lives as long as its Udf
  const UdfSpec& d = *detail::UdfAccess::spec(plain);
  EXPECT_EQ(d.timeout, milliseconds(0)) << "no timeout by default";
  EXPECT_EQ(d.max_concurrency, 1);
  std::string msg = error_of([] { stateful().timeout(milliseconds(0)); });
  EXPECT_TRUE(mentions(msg, "udf 'echo': timeout must be > 0 ms, got 0 ms")) << msg;
  msg = error_of([] { stateful().max_concurrency(0); });
  EXPECT_TRUE(mentions(msg, "udf 'echo': max_concurrency must be >= 1, got 0")) << msg;
  // A worker process serves several calls at once too, whichever setter comes last.
  EXPECT_EQ(error_of([&] { udf.isolation(Isolation::Process); }), "");
  EXPECT_EQ(detail::UdfAccess::spec(udf.isolation(Isolation::Process))->max_concurrency, 8);
  EXPECT_EQ(error_of([] {
              Udf::cls<Concurrent>("conc").isolation(Isolation::Process).max_concurrency(2);
            }),
            "");
  msg = error_of([] { stateless().timeout(milliseconds(5)); });
  EXPECT_TRUE(mentions(msg, "applies only to stateful UDFs")) << msg;
}

TEST(UdfBuilder, ProcessIsolationNeedsARegisteredClass) {
  std::string msg = error_of([] { stateful().isolation(Isolation::Process); });
  EXPECT_TRUE(mentions(msg, "udf 'echo'")) << msg;
  EXPECT_TRUE(mentions(msg, "add EMBER_REGISTER_UDF(")) << msg;
}

TEST(UdfBuilder, RejectsEmptyNamesAndFunctions) {
  EXPECT_TRUE(mentions(error_of([] { Udf::cls<Echo>(""); }), "non-empty name"));
  EXPECT_TRUE(mentions(error_of([] { Udf::fn("", [](const Batch& b) { return b.column(0); }); }),
                       "non-empty name"));
  EXPECT_TRUE(mentions(error_of([] { Udf::fn("f", nullptr); }), "empty function"));
}

}  // namespace
}  // namespace ember
