// UDF failure policy through whole queries: retries, OnError::Null and Skip isolating exactly
// the failing rows (thread and process actors, across morsels and partitions), rejected rows,
// max_failed_rows, a worker that crashes during isolation, calls past their timeout, several
// calls at once per actor, and num_cpus left unset.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ember/ember.h"

using namespace ember;

namespace {

/// Returns id * 3; throws "bad id <id>" for a batch holding an id divisible by 97.
class Picky {
 public:
  explicit Picky(const InitArgs&) {}
  Column operator()(const Batch& in) {
    const Column& id = in.column(0);
    std::vector<int64_t> out;
    out.reserve(static_cast<size_t>(in.num_rows()));
    for (int64_t i = 0; i < in.num_rows(); ++i) {
      const int64_t v = id.value<int64_t>(i);
      if (v % 97 == 0) throw std::runtime_error("bad id " + std::to_string(v));
      out.push_back(v * 3);
    }
    return Column::from(std::move(out));
  }
};
EMBER_REGISTER_UDF(Picky);

/// As Picky, but a bad id kills the worker process (abort) instead of throwing.
class CrashOnBad {
 public:
  explicit CrashOnBad(const InitArgs&) {}
  Column operator()(const Batch& in) {
    const Column& id = in.column(0);
    std::vector<int64_t> out;
    for (int64_t i = 0; i < in.num_rows(); ++i) {
      const int64_t v = id.value<int64_t>(i);
      if (v % 97 == 0) std::abort();
      out.push_back(v * 3);
    }
    return Column::from(std::move(out));
  }
};
EMBER_REGISTER_UDF(CrashOnBad);

/// Calls of HangsOnBad that began and ended a hang (thread actors: a retired actor's thread
/// finishes its call on its own, after the query).
std::atomic<int> hangs_begun{0}, hangs_ended{0};

/// As Picky, but a batch holding a bad id sleeps "hang_ms" instead of throwing.
class HangsOnBad {
 public:
  explicit HangsOnBad(const InitArgs& a) : hang_ms_(a.get<int64_t>("hang_ms")) {}
  Column operator()(const Batch& in) {
    const Column& id = in.column(0);
    std::vector<int64_t> out;
    for (int64_t i = 0; i < in.num_rows(); ++i) {
      const int64_t v = id.value<int64_t>(i);
      if (v % 97 == 0) {
        hangs_begun++;
        std::this_thread::sleep_for(std::chrono::milliseconds(hang_ms_));
        hangs_ended++;
      }
      out.push_back(v * 3);
    }
    return Column::from(std::move(out));
  }

 private:
  int64_t hang_ms_;
};
EMBER_REGISTER_UDF(HangsOnBad);

std::atomic<int> failures_left{0};

/// Calls of Overlapping running now, their peak, and constructions.
std::atomic<int> overlap_now{0}, overlap_peak{0}, overlap_inits{0};

/// Returns id * 3 after 20 ms, recording how many calls overlap.
class Overlapping {
 public:
  explicit Overlapping(const InitArgs&) { overlap_inits++; }
  Column operator()(const Batch& in) {
    const int now = ++overlap_now;
    int seen = overlap_peak.load();
    while (now > seen && !overlap_peak.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::vector<int64_t> out;
    for (int64_t i = 0; i < in.num_rows(); ++i) out.push_back(in.column(0).value<int64_t>(i) * 3);
    --overlap_now;
    return Column::from(std::move(out));
  }
};

/// Returns id * 3; the first calls (while `failures_left` is positive) throw.
class FailsFirst {
 public:
  explicit FailsFirst(const InitArgs&) {}
  Column operator()(const Batch& in) {
    if (failures_left.fetch_sub(1) > 0) throw std::runtime_error("not yet");
    std::vector<int64_t> out;
    for (int64_t i = 0; i < in.num_rows(); ++i) out.push_back(in.column(0).value<int64_t>(i) * 3);
    return Column::from(std::move(out));
  }
};

RunOptions machine(double cpus = 8) {
  RunOptions o;
  o.resources = Resources{cpus, 0, int64_t{8} << 30};
  return o;
}

/// The ids of the rejected rows, checking each row's udf name and message.
std::vector<int64_t> rejected_ids(const QueryResult& r, const std::string& udf,
                                  const std::string& message_prefix) {
  std::vector<int64_t> ids;
  const Table& t = r.rejected;
  EXPECT_EQ(t.schema().field(0).name, "udf");
  EXPECT_EQ(t.schema().field(1).name, "error");
  if (t.num_rows() == 0) return ids;
  EXPECT_EQ(t.schema().field(2).name, "id");
  Column names = t.column("udf"), errors = t.column("error"), id = t.column("id");
  for (int64_t i = 0; i < t.num_rows(); ++i) {
    EXPECT_EQ(names.value<std::string_view>(i), udf);
    const std::string error(errors.value<std::string_view>(i));
    EXPECT_NE(error.find(message_prefix), std::string::npos) << error;
    ids.push_back(id.value<int64_t>(i));
  }
  return ids;
}

std::vector<int64_t> multiples_of_97(int64_t n) {
  std::vector<int64_t> v;
  for (int64_t x = 0; x < n; x += 97) v.push_back(x);
  return v;
}

struct Case {
  Isolation isolation;
  OnError policy;
  int calls = 1;  ///< max_concurrency
};

class FailurePolicyQuery : public testing::TestWithParam<Case> {};

TEST_P(FailurePolicyQuery, OnlyTheFailingRowsAreAffected) {
  const auto [isolation, policy, calls] = GetParam();
  // Two partitions of 75,000 rows: each spans two 64K morsels, and chunks of 100 rows cross
  // the morsel boundary.
  const int64_t n = 150000;
  Udf picky = Udf::cls<Picky>("picky")
                  .returns(int64())
                  .batch_size(100)
                  .concurrency(2)
                  .isolation(isolation)
                  .max_concurrency(calls)
                  .on_error(policy);
  QueryResult r = range(n, 2).with_column("y", picky(col("id"))).execute(machine());
  Column id = r.table.column("id"), y = r.table.column("y");
  int64_t row = 0;
  for (int64_t x = 0; x < n; ++x) {
    if (x % 97 == 0 && policy == OnError::Skip) continue;
    ASSERT_LT(row, id.size());
    ASSERT_EQ(id.value<int64_t>(row), x);
    if (x % 97 == 0) {
      EXPECT_TRUE(y.is_null(row)) << x;
    } else {
      ASSERT_FALSE(y.is_null(row)) << x;
      ASSERT_EQ(y.value<int64_t>(row), 3 * x);
    }
    ++row;
  }
  EXPECT_EQ(row, r.table.num_rows());
  // Every id below n that 97 divides failed: "udf 'picky' failed on ...: bad id <x>".
  std::vector<int64_t> ids = rejected_ids(r, "picky", "udf 'picky' failed on 1 arg (id: int64)");
  EXPECT_EQ(ids, multiples_of_97(n)) << "exactly the failing rows, in input order";
  Column errors = r.rejected.column("error");
  for (int64_t i = 0; i < errors.size(); ++i) {
    EXPECT_NE(std::string(errors.value<std::string_view>(i))
                  .find("bad id " + std::to_string(ids[static_cast<size_t>(i)])),
              std::string::npos);
  }
  EXPECT_EQ(r.stats.udfs.at(0).failed_rows, static_cast<int64_t>(ids.size()));
  EXPECT_EQ(r.stats.udfs.at(0).inits, 2) << "isolation constructs nothing new";
}

INSTANTIATE_TEST_SUITE_P(
    Policies, FailurePolicyQuery,
    testing::Values(Case{Isolation::Thread, OnError::Null}, Case{Isolation::Thread, OnError::Skip},
                    Case{Isolation::Process, OnError::Null},
                    Case{Isolation::Process, OnError::Skip},
                    Case{Isolation::Process, OnError::Null, 4},
                    Case{Isolation::Process, OnError::Skip, 4}),
    [](const testing::TestParamInfo<Case>& info) {
      return std::string(info.param.isolation == Isolation::Thread ? "Thread" : "Process") +
             (info.param.policy == OnError::Null ? "Null" : "Skip") +
             (info.param.calls > 1 ? "Calls" + std::to_string(info.param.calls) : "");
    });

/// The query over CrashOnBad (`calls` per worker at once) under Null: exactly the bad rows
/// are null and rejected.
void expect_crashed_rows_nulled(int calls) {
  const int64_t n = 300;
  Udf crashy = Udf::cls<CrashOnBad>("crashy")
                   .returns(int64())
                   .batch_size(64)
                   .isolation(Isolation::Process)
                   .max_concurrency(calls)
                   .on_error(OnError::Null);
  QueryResult r = range(n, 2).with_column("y", crashy(col("id"))).execute(machine());
  Column y = r.table.column("y");
  ASSERT_EQ(y.size(), n);
  for (int64_t x = 0; x < n; ++x) {
    if (x % 97 == 0) {
      EXPECT_TRUE(y.is_null(x)) << x;
    } else {
      ASSERT_EQ(y.value<int64_t>(x), 3 * x);
    }
  }
  EXPECT_EQ(rejected_ids(r, "crashy", "SIGABRT"), multiples_of_97(n));
  EXPECT_GT(r.stats.udfs.at(0).inits, 1) << "each crash was followed by a new worker";
}

TEST(FailurePolicy, AWorkerThatCrashesOnABadRowIsIsolatedLikeAThrow) {
  expect_crashed_rows_nulled(1);
}

TEST(FailurePolicy, AWorkerServingSeveralCallsThatCrashesNullsOnlyTheBadRows) {
  // The calls in flight beside the one that crashed are run again alone, so none of their
  // rows is nulled for another's crash.
  expect_crashed_rows_nulled(4);
}

/// The query over HangsOnBad with a 200 ms timeout under Null: exactly the bad rows are null
/// and rejected as timed out; returns the UDF's figures.
UdfStats expect_hung_rows_nulled(Isolation isolation, int64_t hang_ms, int calls = 1) {
  const int64_t n = 256;  // two partitions of 128 rows: chunks of exactly 64
  Udf hangs = Udf::cls<HangsOnBad>("hangs")
                  .returns(int64())
                  .init_args({{"hang_ms", hang_ms}})
                  .batch_size(64)
                  .concurrency(2)
                  .isolation(isolation)
                  .timeout(std::chrono::milliseconds(200))
                  .max_concurrency(calls)
                  .on_error(OnError::Null);
  const auto t0 = std::chrono::steady_clock::now();
  QueryResult r = range(n, 2).with_column("y", hangs(col("id"))).execute(machine());
  const auto took = std::chrono::steady_clock::now() - t0;
  Column y = r.table.column("y");
  EXPECT_EQ(y.size(), n);
  for (int64_t x = 0; x < n && x < y.size(); ++x) {
    if (x % 97 == 0) {
      EXPECT_TRUE(y.is_null(x)) << x;
    } else {
      EXPECT_EQ(y.value<int64_t>(x), 3 * x) << x;
    }
  }
  EXPECT_EQ(rejected_ids(r, "hangs", "ran past its timeout of 200 ms"), multiples_of_97(n));
  // Each bad row hangs once per level of its isolation (64 rows: 3 calls, of 64, 8 and 1
  // rows), 200 ms each, on two actors; a query that waited for the hangs would take hang_ms
  // per call.
  EXPECT_LT(took, std::chrono::seconds(30));
  return r.stats.udfs.at(0);
}

TEST(FailurePolicy, AThreadActorPastItsTimeoutIsRetiredAndItsRowsNulled) {
  hangs_begun = hangs_ended = 0;
  const UdfStats s = expect_hung_rows_nulled(Isolation::Thread, 1000);
  // 3 bad rows (0, 97, 194), each through 3 levels of isolation (64, 8 and 1 rows: a failed
  // piece is split in 8).
  EXPECT_EQ(s.timeouts, 3 * 3);
  // Each timeout retired its actor and started a fresh one; a fresh actor whose query ended
  // before it got going (at most one per actor, the last) is not constructed.
  EXPECT_GE(s.inits, s.timeouts) << "each timeout retired its actor for a fresh one";
  EXPECT_LE(s.inits, 2 + s.timeouts);
  EXPECT_EQ(s.failed_rows, 3);
  // The retired actors' threads finish their calls after the query; wait for them.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (hangs_ended.load() < hangs_begun.load() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(hangs_ended.load(), hangs_begun.load());
}

TEST(FailurePolicy, AProcessActorPastItsTimeoutIsKilledAndItsRowsNulled) {
  const UdfStats s = expect_hung_rows_nulled(Isolation::Process, 60000);
  EXPECT_EQ(s.timeouts, 3 * 3);
  EXPECT_EQ(s.inits, 2 + s.timeouts) << "each killed worker was replaced by a fresh one";
  EXPECT_EQ(s.failed_rows, 3);
}

TEST(FailurePolicy, AProcessActorServingSeveralCallsKillsOnlyForTheCallPastItsTimeout) {
  // The calls killed beside a hung one run again alone: each hung piece times out once, and
  // no other row is nulled.
  const UdfStats s = expect_hung_rows_nulled(Isolation::Process, 60000, 4);
  EXPECT_EQ(s.timeouts, 3 * 3);
  EXPECT_EQ(s.inits, 2 + s.timeouts) << "each killed worker was replaced by a fresh one";
  EXPECT_EQ(s.failed_rows, 3);
  EXPECT_EQ(s.retries, 0);
}

TEST(FailurePolicy, ACrashDuringIsolationIsRetriedByTheSameRuleAsAThrow) {
  // One rule for throws and dead workers: each failing piece is re-run exactly max_retries
  // times by the pool (not once more by the actor), then split.
  const int64_t n = 256;  // two partitions of 128 rows: chunks of exactly 64
  Udf crashy = Udf::cls<CrashOnBad>("crashy")
                   .returns(int64())
                   .batch_size(64)
                   .isolation(Isolation::Process)
                   .max_retries(1)
                   .retry_backoff(std::chrono::milliseconds(0), std::chrono::milliseconds(0))
                   .on_error(OnError::Null);
  QueryResult r = range(n, 2).with_column("y", crashy(col("id"))).execute(machine());
  Column y = r.table.column("y");
  ASSERT_EQ(y.size(), n);
  for (int64_t x = 0; x < n; ++x) {
    if (x % 97 == 0) {
      EXPECT_TRUE(y.is_null(x)) << x;
    } else {
      ASSERT_EQ(y.value<int64_t>(x), 3 * x);
    }
  }
  EXPECT_EQ(rejected_ids(r, "crashy", "gave up after 1 retry (max_retries = 1)"),
            multiples_of_97(n));
  // 3 bad rows (0, 97, 194), each in 3 failing pieces (64, 8 and 1 rows), each retried once.
  EXPECT_EQ(r.stats.udfs.at(0).retries, 3 * 3);
  EXPECT_EQ(r.stats.udfs.at(0).failed_rows, 3);
}

TEST(FailurePolicy, FailsTwiceThenSucceedsWithMaxRetries) {
  failures_left = 2;
  Udf flaky =
      Udf::cls<FailsFirst>("flaky").returns(int64()).batch_size(1000).max_retries(2).retry_backoff(
          std::chrono::milliseconds(5), std::chrono::milliseconds(20));
  QueryResult r = range(5000, 2).with_column("y", flaky(col("id"))).execute(machine());
  Column y = r.table.column("y");
  ASSERT_EQ(y.size(), 5000);
  for (int64_t x = 0; x < 5000; ++x) ASSERT_EQ(y.value<int64_t>(x), 3 * x);
  EXPECT_EQ(r.stats.udfs.at(0).retries, 2);
  EXPECT_EQ(r.stats.udfs.at(0).failed_rows, 0);
  EXPECT_EQ(r.rejected.num_rows(), 0);
}

TEST(FailurePolicy, MoreFailedRowsThanMaxFailedRowsIsAUdfError) {
  Udf picky = Udf::cls<Picky>("picky")
                  .returns(int64())
                  .batch_size(100)
                  .on_error(OnError::Skip)
                  .max_failed_rows(3);
  try {
    range(10000, 2).with_column("y", picky(col("id"))).execute(machine());
    FAIL() << "expected UdfError";
  } catch (const UdfError& e) {
    EXPECT_NE(std::string(e.what()).find("more than max_failed_rows = 3"), std::string::npos)
        << e.what();
  }
  // At the limit exactly, the query succeeds.
  QueryResult r =
      range(300, 1).with_column("y", picky.max_failed_rows(4)(col("id"))).execute(machine());
  EXPECT_EQ(r.rejected.num_rows(), 4);
  EXPECT_EQ(r.table.num_rows(), 296);
}

TEST(FailurePolicy, RaiseIsTheDefault) {
  Udf picky = Udf::cls<Picky>("picky").returns(int64()).batch_size(100);
  EXPECT_THROW(range(1000).with_column("y", picky(col("id"))).execute(machine()), UdfError);
}

TEST(FailurePolicy, ExplainShowsThePolicy) {
  Udf picky = Udf::cls<Picky>("picky")
                  .returns(int64())
                  .max_retries(2)
                  .retry_backoff(std::chrono::milliseconds(20), std::chrono::milliseconds(80))
                  .on_error(OnError::Null)
                  .max_failed_rows(10);
  const std::string plan = range(10).with_column("y", picky(col("id"))).explain(machine());
  EXPECT_NE(plan.find("max_retries 2, on_error null, retry_backoff 20 ms -> 80 ms, "
                      "max_failed_rows 10"),
            std::string::npos)
      << plan;
}

TEST(FailurePolicy, ExplainShowsTheDeadlineAndCallsPerActor) {
  Udf picky = Udf::cls<Picky>("picky")
                  .returns(int64())
                  .timeout(std::chrono::milliseconds(1500))
                  .max_concurrency(4);
  const std::string plan = range(10).with_column("y", picky(col("id"))).explain(machine());
  EXPECT_NE(plan.find("on_error raise, timeout 1500 ms, max_concurrency 4"), std::string::npos)
      << plan;
}

TEST(Defaults, AnUnsetNumCpusReservesNoneSoConcurrencyAloneIsAdmitted) {
  Udf picky = Udf::cls<Picky>("picky").returns(int64()).concurrency(4).on_error(OnError::Null);
  // Four actors on a two-CPU machine: they share the CPUs with the pipeline threads.
  QueryResult r = range(1000, 2).with_column("y", picky(col("id"))).execute(machine(2));
  EXPECT_EQ(r.table.num_rows(), 1000);
  EXPECT_EQ(r.stats.udfs.at(0).actors, 4);
  EXPECT_EQ(r.stats.udfs.at(0).held_cpus, 0);
  const std::string plan = range(10).with_column("y", picky(col("id"))).explain(machine(2));
  EXPECT_NE(plan.find("per actor 0 CPU (num_cpus unset: reserves none)"), std::string::npos)
      << plan;
  // An explicit request is admitted strictly.
  EXPECT_THROW(range(10).with_column("y", picky.num_cpus(1)(col("id"))).execute(machine(2)),
               ResourceError);
}

TEST(Concurrency, OneActorServesMaxConcurrencyCallsOfAQueryAtOnce) {
  overlap_now = overlap_peak = overlap_inits = 0;
  Udf u = Udf::cls<Overlapping>("overlapping").returns(int64()).batch_size(50).max_concurrency(4);
  QueryResult r = range(4000, 4).with_column("y", u(col("id"))).execute(machine());
  Column y = r.table.column("y");
  ASSERT_EQ(y.size(), 4000);
  for (int64_t x = 0; x < 4000; ++x) ASSERT_EQ(y.value<int64_t>(x), 3 * x);
  EXPECT_EQ(overlap_peak.load(), 4) << "one actor, four calls at once, never more";
  EXPECT_EQ(overlap_inits.load(), 1);
  EXPECT_EQ(r.stats.udfs.at(0).inits, 1);
  EXPECT_EQ(r.stats.udfs.at(0).actors, 1);
}

}  // namespace
