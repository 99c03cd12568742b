// Stateful UDFs on actor pools, through whole queries.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include "ember/ember.h"

using namespace ember;

namespace {

struct Counters {
  std::atomic<int> constructed{0}, destroyed{0};
  std::atomic<int64_t> calls{0}, rows{0}, max_rows{0};
  std::mutex mu;
  std::vector<int64_t> call_sizes;
  void reset() {
    constructed = 0;
    destroyed = 0;
    calls = 0;
    rows = 0;
    max_rows = 0;
    std::lock_guard<std::mutex> l(mu);
    call_sizes.clear();
  }
};
Counters counters;

/// Adds `offset` (an init arg) to its int64 argument; counts constructions, calls, rows, and the
/// batches this instance served (state that persists across partitions).
class AddOffset {
 public:
  AddOffset(const InitArgs& a, const ActorContext&) : offset_(a.get<int64_t>("offset")) {
    if (a.has("init_sleep_ms"))
      std::this_thread::sleep_for(std::chrono::milliseconds(a.get<int64_t>("init_sleep_ms")));
    counters.constructed++;
  }
  ~AddOffset() { counters.destroyed++; }
  Column operator()(const Batch& in) {
    ++served_;
    counters.calls++;
    counters.rows += in.num_rows();
    {
      std::lock_guard<std::mutex> l(counters.mu);
      counters.call_sizes.push_back(in.num_rows());
    }
    const Column& x = in.column(0);
    ColumnBuilder b(int64(), in.num_rows());
    for (int64_t i = 0; i < in.num_rows(); ++i) {
      if (x.is_null(i))
        b.append_null();
      else
        b.append(x.value<int64_t>(i) + offset_);
    }
    return b.finish();
  }

 private:
  int64_t offset_;
  int64_t served_ = 0;
};

/// Returns how many batches this instance has served so far (proves state persists).
class ServedCounter {
 public:
  explicit ServedCounter(const InitArgs&) { counters.constructed++; }
  ~ServedCounter() { counters.destroyed++; }
  Column operator()(const Batch& in) {
    ++served_;
    return Column::repeat(Value{served_}, int64(), in.num_rows());
  }

 private:
  int64_t served_ = 0;
};

/// Concatenates a utf8 and an int64 argument: "a:1".
class Joiner {
 public:
  explicit Joiner(const InitArgs&) { counters.constructed++; }
  ~Joiner() { counters.destroyed++; }
  Column operator()(const Batch& in) {
    ColumnBuilder b(utf8(), in.num_rows());
    for (int64_t i = 0; i < in.num_rows(); ++i)
      b.append(in.column(0).value<std::string>(i) + ":" +
               std::to_string(in.column(1).value<int64_t>(i)));
    return b.finish();
  }
};

class FailingInit {
 public:
  explicit FailingInit(const InitArgs&) {
    int n = ++counters.constructed;
    if (n == 2) throw std::runtime_error("model file is corrupt");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ~FailingInit() { counters.destroyed++; }
  Column operator()(const Batch& in) { return in.column(0); }
};

class FailingCall {
 public:
  explicit FailingCall(const InitArgs&) { counters.constructed++; }
  ~FailingCall() { counters.destroyed++; }
  Column operator()(const Batch& in) {
    if (++counters.calls == 3) throw std::runtime_error("tensor shape mismatch");
    return in.column(0);
  }
};

class WrongLength {
 public:
  explicit WrongLength(const InitArgs&) { counters.constructed++; }
  ~WrongLength() { counters.destroyed++; }
  Column operator()(const Batch& in) { return in.column(0).slice(0, in.num_rows() - 1); }
};

class WrongType {
 public:
  explicit WrongType(const InitArgs&) { counters.constructed++; }
  ~WrongType() { counters.destroyed++; }
  Column operator()(const Batch& in) {
    return Column::repeat(Value{1.5}, float64(), in.num_rows());
  }
};

RunOptions big_machine(int threads = 0) {
  RunOptions o;
  o.resources = Resources{64, 0, int64_t{64} << 30};
  o.threads = threads;
  return o;
}

Udf add_offset(int concurrency, int64_t batch, int64_t offset = 100) {
  return Udf::cls<AddOffset>("add_offset")
      .returns(int64())
      .init_args({{"offset", offset}})
      .batch_size(batch)
      .concurrency(concurrency);
}

std::vector<int64_t> ints(const Column& c) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < c.size(); ++i) out.push_back(c.value<int64_t>(i));
  return out;
}

}  // namespace

class PoolConcurrency : public testing::TestWithParam<int> {
 protected:
  void SetUp() override { counters.reset(); }
};

TEST_P(PoolConcurrency, InitOncePerActorAcrossManyPartitions) {
  const int actors = GetParam();
  const int64_t n = 100000;
  // num_cpus set explicitly: unset, a pool reserves no CPU and holds nothing.
  QueryResult r = range(n, 64)
                      .with_column("y", add_offset(actors, 1000).num_cpus(1)(col("id")))
                      .execute(big_machine(2));
  EXPECT_EQ(counters.constructed.load(), actors);
  EXPECT_EQ(counters.destroyed.load(), actors);  // torn down when the query ended
  std::vector<int64_t> expect(n);
  for (int64_t i = 0; i < n; ++i) expect[static_cast<size_t>(i)] = i + 100;
  EXPECT_EQ(ints(r.table.column("y")), expect);  // exact, in input order
  ASSERT_EQ(r.stats.udfs.size(), 1u);
  const UdfStats& s = r.stats.udfs[0];
  EXPECT_EQ(s.name, "add_offset");
  EXPECT_EQ(s.actors, actors);
  EXPECT_EQ(s.inits, actors);
  EXPECT_EQ(s.rows, n);
  EXPECT_EQ(s.batches, counters.calls.load());
  EXPECT_DOUBLE_EQ(s.held_cpus, actors * 1.0);
}

INSTANTIATE_TEST_SUITE_P(Actors, PoolConcurrency, testing::Values(1, 2, 4));

TEST(StatefulUdf, CallsAreFullSizedAcrossMorselsExceptLastPerPartition) {
  counters.reset();
  // 3 partitions of 100000 rows; batch 30000: each partition gives 3 full calls + one of 10000.
  range(300000, 3).with_column("y", add_offset(2, 30000)(col("id"))).collect(big_machine());
  std::vector<int64_t> sizes;
  {
    std::lock_guard<std::mutex> l(counters.mu);
    sizes = counters.call_sizes;
  }
  std::sort(sizes.begin(), sizes.end());
  std::vector<int64_t> expect = {10000, 10000, 10000};
  for (int i = 0; i < 9; ++i) expect.push_back(30000);
  EXPECT_EQ(sizes, expect);
}

TEST(StatefulUdf, EveryCallAtMostBatchSize) {
  counters.reset();
  range(70000, 5).with_column("y", add_offset(3, 777)(col("id"))).collect(big_machine());
  std::lock_guard<std::mutex> l(counters.mu);
  for (int64_t s : counters.call_sizes) EXPECT_LE(s, 777);
  EXPECT_EQ(counters.rows.load(), 70000);
}

TEST(StatefulUdf, StatePersistsAcrossPartitions) {
  counters.reset();
  Udf served = Udf::cls<ServedCounter>("served").returns(int64()).batch_size(10).concurrency(1);
  Table t = range(1000, 20).with_column("n", served(col("id"))).collect(big_machine());
  Column n = t.column("n");
  int64_t max = 0;
  for (int64_t i = 0; i < n.size(); ++i) max = std::max(max, n.value<int64_t>(i));
  EXPECT_EQ(max, 100);  // one instance served all 100 batches of all 20 partitions
  EXPECT_EQ(counters.constructed.load(), 1);
}

TEST(StatefulUdf, InitArgsReachTheConstructor) {
  counters.reset();
  Table t = range(10).with_column("y", add_offset(1, 4, -5)(col("id"))).collect(big_machine());
  EXPECT_EQ(t.column("y").value<int64_t>(9), 4);
}

TEST(StatefulUdf, EmptyInputStillTearsDown) {
  counters.reset();
  Table t = range(0, 3).with_column("y", add_offset(2, 10)(col("id"))).collect(big_machine());
  EXPECT_EQ(t.num_rows(), 0);
  EXPECT_EQ(counters.constructed.load(), 2);
  EXPECT_EQ(counters.destroyed.load(), 2);
  EXPECT_EQ(counters.calls.load(), 0);
}

TEST(StatefulUdf, MultiplePoolsAndMultipleArguments) {
  counters.reset();
  Table in = Table::from_columns({{"s", Column::from(std::vector<std::string>{"a", "b", "c", "d"})},
                                  {"k", Column::from(std::vector<int64_t>{1, 2, 3, 4})}});
  Udf joiner = Udf::cls<Joiner>("joiner").returns(utf8()).batch_size(3).concurrency(2);
  QueryResult r = from_table(in, 2)
                      .with_column("k2", add_offset(2, 2, 10)(col("k") * lit(int64_t{2})))
                      .with_column("j", joiner(col("s"), col("k2")))
                      .execute(big_machine());
  Column j = r.table.column("j");
  std::vector<std::string> got;
  for (int64_t i = 0; i < j.size(); ++i) got.push_back(j.value<std::string>(i));
  EXPECT_EQ(got, (std::vector<std::string>{"a:12", "b:14", "c:16", "d:18"}));
  EXPECT_EQ(r.stats.udfs.size(), 2u);
  EXPECT_EQ(counters.constructed.load(), 4);
  EXPECT_EQ(counters.destroyed.load(), 4);
  EXPECT_EQ(r.table.schema().to_string(), "s: utf8, k: int64, k2: int64, j: utf8");
}

TEST(StatefulUdf, OnlyArgumentColumnsReachActorsOthersPassThrough) {
  counters.reset();
  Table in = Table::from_columns({{"a", Column::from(std::vector<int64_t>{1, 2, 3})},
                                  {"b", Column::from(std::vector<std::string>{"x", "y", "z"})}});
  Table t = from_table(in).with_column("c", add_offset(1, 2, 1)(col("a"))).collect(big_machine());
  EXPECT_EQ(t.column("b").value<std::string>(2), "z");
  EXPECT_EQ(ints(t.column("c")), (std::vector<int64_t>{2, 3, 4}));
}

TEST(StatefulUdf, FilterNotReadingUdfOutputRunsBeforeThePool) {
  counters.reset();
  DataFrame df = range(10000, 4)
                     .with_column("y", add_offset(2, 100)(col("id")))
                     .where(col("id") % lit(int64_t{10}) == lit(int64_t{0}));
  Table t = df.collect(big_machine());
  EXPECT_EQ(t.num_rows(), 1000);
  EXPECT_EQ(counters.rows.load(), 1000);  // only the surviving rows reached the actors
  std::string e = df.explain(big_machine());
  std::string opt = e.substr(e.find("== Optimized plan =="));
  EXPECT_LT(opt.find("ActorPoolProject"), opt.find("Filter")) << e;
  EXPECT_NE(e.find("add_offset: concurrency 2, batch size 100"), std::string::npos) << e;
}

TEST(StatefulUdf, LimitStopsFeedingThePoolAndTearsDown) {
  counters.reset();
  Table t = range(1'000'000, 8)
                .with_column("y", add_offset(2, 50)(col("id")))
                .limit(120)
                .collect(big_machine());
  EXPECT_EQ(t.num_rows(), 120);
  EXPECT_EQ(t.column("y").value<int64_t>(119), 219);
  EXPECT_EQ(counters.rows.load(), 120);
  EXPECT_EQ(counters.destroyed.load(), counters.constructed.load());
}

TEST(StatefulUdf, ConstructorFailureIsUdfErrorAndTearsDownOthers) {
  counters.reset();
  Udf u = Udf::cls<FailingInit>("loader").returns(int64()).concurrency(3);
  try {
    range(100, 4).with_column("y", u(col("id"))).collect(big_machine());
    FAIL() << "expected UdfError";
  } catch (const UdfError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("loader"), std::string::npos) << m;
    EXPECT_NE(m.find("model file is corrupt"), std::string::npos) << m;
  }
  EXPECT_EQ(counters.destroyed.load(), counters.constructed.load() - 1);
}

namespace {
std::atomic<bool> input_read{false};

/// A model whose constructor waits (up to 20 s) to see the query read rows before it is done:
/// records whether it did, i.e. whether the scan ran while the actors constructed.
class WaitsForInput {
 public:
  explicit WaitsForInput(const InitArgs&) {
    for (int i = 0; i < 2000 && !input_read.load(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    saw_input_ = input_read.load();
    counters.constructed++;
  }
  ~WaitsForInput() { counters.destroyed++; }
  Column operator()(const Batch& in) {
    return Column::repeat(Value{int64_t{saw_input_ ? 1 : 0}}, int64(), in.num_rows());
  }

 private:
  bool saw_input_ = false;
};
}  // namespace

TEST(StatefulUdf, ActorsConstructWhileTheQueryReadsItsInput) {
  counters.reset();
  input_read = false;
  Udf mark = Udf::fn("mark", [](const Batch& in) {
               input_read = true;
               return in.column(0);
             }).returns(int64());
  Udf model = Udf::cls<WaitsForInput>("waits_for_input").returns(int64()).concurrency(2);
  Table t = range(2000, 4)
                .with_column("m", mark(col("id")))
                .with_column("saw", model(col("m")))
                .collect(big_machine(2));
  ASSERT_EQ(t.num_rows(), 2000);
  for (int64_t i = 0; i < t.num_rows(); ++i)
    ASSERT_EQ(t.column("saw").value<int64_t>(i), 1) << "row " << i;
  EXPECT_EQ(counters.constructed.load(), 2);
  EXPECT_EQ(counters.destroyed.load(), 2);
}

TEST(StatefulUdf, ConstructorFailureUnderOnErrorNullFailsTheQueryNotItsRows) {
  counters.reset();
  Udf u = Udf::cls<FailingInit>("loader").returns(int64()).concurrency(3).on_error(OnError::Null);
  try {
    range(1000, 4).with_column("y", u(col("id"))).execute(big_machine());
    FAIL() << "expected UdfError";
  } catch (const UdfError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("'loader'"), std::string::npos) << m;
    EXPECT_NE(m.find("model file is corrupt"), std::string::npos) << m;
  }
  EXPECT_EQ(counters.destroyed.load(), counters.constructed.load() - 1);
}

TEST(StatefulUdf, EveryActorConstructsEvenWhenTheInputIsTooSmallToReachIt) {
  counters.reset();
  Udf u = add_offset(4, 64);
  auto r = range(3, 1).with_column("y", u(col("id"))).execute(big_machine());
  EXPECT_EQ(r.table.num_rows(), 3);
  EXPECT_EQ(r.stats.udfs.at(0).inits, 4);
  EXPECT_EQ(counters.constructed.load(), 4);
  EXPECT_EQ(counters.destroyed.load(), 4);
}

TEST(StatefulUdf, CallFailureNamesUdfCauseAndShape) {
  counters.reset();
  Udf u = Udf::cls<FailingCall>("embedder").returns(int64()).batch_size(10).concurrency(2);
  try {
    range(1000, 4).with_column("y", u(col("id"))).collect(big_machine());
    FAIL() << "expected UdfError";
  } catch (const UdfError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("embedder"), std::string::npos) << m;
    EXPECT_NE(m.find("tensor shape mismatch"), std::string::npos) << m;
    EXPECT_NE(m.find("id: int64"), std::string::npos) << m;
    EXPECT_NE(m.find("10 rows"), std::string::npos) << m;
  }
  EXPECT_EQ(counters.destroyed.load(), counters.constructed.load());
}

TEST(StatefulUdf, WrongLengthAndWrongTypeResults) {
  counters.reset();
  Udf len = Udf::cls<WrongLength>("shorty").returns(int64()).batch_size(10);
  try {
    range(100).with_column("y", len(col("id"))).collect(big_machine());
    FAIL();
  } catch (const UdfError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("shorty"), std::string::npos) << m;
    EXPECT_NE(m.find("9"), std::string::npos) << m;
    EXPECT_NE(m.find("10"), std::string::npos) << m;
  }
  Udf typ = Udf::cls<WrongType>("floaty").returns(int64()).batch_size(10);
  try {
    range(100).with_column("y", typ(col("id"))).collect(big_machine());
    FAIL();
  } catch (const UdfError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("float64"), std::string::npos) << m;
    EXPECT_NE(m.find("int64"), std::string::npos) << m;
  }
  EXPECT_EQ(counters.destroyed.load(), counters.constructed.load());
}

TEST(StatefulUdf, StatelessFnRunsInlineHonouringBatchSize) {
  std::atomic<int64_t> max_rows{0}, calls{0};
  Udf twice = Udf::fn("twice",
                      [&](const Batch& in) {
                        calls++;
                        int64_t n = in.num_rows();
                        int64_t prev = max_rows.load();
                        while (n > prev && !max_rows.compare_exchange_weak(prev, n)) {
                        }
                        ColumnBuilder b(int64(), n);
                        for (int64_t i = 0; i < n; ++i)
                          b.append(in.column(0).value<int64_t>(i) * 2);
                        return b.finish();
                      })
                  .returns(int64())
                  .batch_size(1000);
  Table t = range(10000, 2).with_column("y", twice(col("id"))).collect();
  EXPECT_EQ(t.column("y").value<int64_t>(9999), 19998);
  EXPECT_LE(max_rows.load(), 1000);
  EXPECT_GE(calls.load(), 10);
}

TEST(StatefulUdf, UdfInsideFilterPredicate) {
  counters.reset();
  Table t = range(100, 3)
                .where(add_offset(1, 16, -50)(col("id")) > lit(int64_t{40}))
                .collect(big_machine());
  EXPECT_EQ(t.num_rows(), 9);  // ids 91..99
  EXPECT_EQ(t.schema().to_string(), "id: int64");
}

TEST(StatefulUdf, ProgressOnPipeDoesNotBreakTheQuery) {
  counters.reset();
  RunOptions o = big_machine();
  o.progress = true;
  EXPECT_EQ(range(5000, 4).with_column("y", add_offset(2, 100)(col("id"))).collect(o).num_rows(),
            5000);
}

TEST(StatefulUdf, InsideAnAggregateRunsInItsPool) {
  counters.reset();
  QueryResult r = range(1000, 8)
                      .agg({add_offset(2, 64)(col("id")).sum(), col("id").count().alias("n")})
                      .execute(big_machine(2));
  ASSERT_EQ(r.table.num_rows(), 1);
  EXPECT_EQ(r.table.column("add_offset").value<int64_t>(0), 499500 + 100 * 1000);
  EXPECT_EQ(r.table.column("n").value<int64_t>(0), 1000);
  ASSERT_EQ(r.stats.udfs.size(), 1u);
  EXPECT_EQ(r.stats.udfs[0].inits, 2);
  EXPECT_EQ(r.stats.udfs[0].rows, 1000);
}
