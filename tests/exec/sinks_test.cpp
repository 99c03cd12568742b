// Each sink on its own: collect (with and without a limit), limit, repartition, aggregate,
// files. Partitions are driven by hand, in the orders the pipeline could produce.
#include <gtest/gtest.h>

#include <filesystem>

#include "ember/error.h"
#include "exec/sinks/aggregate_sink.h"
#include "exec/sinks/collect_sink.h"
#include "exec/sinks/file_sink.h"
#include "exec/sinks/limit_sink.h"
#include "exec/sinks/repartition_sink.h"
#include "exec_test_kit.h"
#include "expr/expr_access.h"

namespace ember {
namespace {

using namespace test;

/// Feeds `batches` to partition `p` and combines it.
void feed(const Sink& sink, GlobalSinkState& g, int p, const std::vector<Batch>& batches) {
  auto local = sink.local_state(g, p);
  for (const auto& b : batches) sink.sink(g, *local, b);
  sink.combine(g, *local);
}

std::vector<int64_t> read_all(const Source& s) {
  std::vector<int64_t> out;
  for (int p = 0; p < s.num_partitions(); ++p) {
    auto r = s.open(p, 1 << 20);
    while (auto b = r->next())
      for (int64_t i = 0; i < b->num_rows(); ++i) out.push_back(b->column(0).value<int64_t>(i));
  }
  return out;
}

TEST(CollectSink, KeepsEveryRowInPartitionOrder) {
  CollectSink sink(x_schema());
  auto g = sink.global_state(3);
  feed(sink, *g, 2, {numbers(20, 5)});  // partitions finish in any order
  feed(sink, *g, 0, {numbers(0, 5), numbers(5, 5)});
  feed(sink, *g, 1, {numbers(10, 10)});
  EXPECT_FALSE(sink.satisfied(*g));
  EXPECT_EQ(values(sink.finalize(*g)), iota(25));
}

TEST(CollectSink, WithALimitKeepsTheFirstRowsAndIsSatisfiedByAPrefix) {
  CollectSink sink(x_schema(), 12);
  auto g = sink.global_state(3);
  feed(sink, *g, 1, {numbers(10, 10)});
  EXPECT_FALSE(sink.satisfied(*g)) << "partition 0 may still hold rows that come first";
  auto local = sink.local_state(*g, 0);
  sink.sink(*g, *local, numbers(0, 5));
  EXPECT_FALSE(sink.full(*local));
  sink.combine(*g, *local);
  EXPECT_TRUE(sink.satisfied(*g)) << "partitions 0 and 1 hold 15 >= 12 rows";
  EXPECT_EQ(values(sink.finalize(*g)),
            (std::vector<int64_t>{0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 15, 16}));
}

TEST(CollectSink, PartitionIsFullAtTheLimitAlone) {
  CollectSink sink(x_schema(), 3);
  auto g = sink.global_state(2);
  auto local = sink.local_state(*g, 1);
  sink.sink(*g, *local, numbers(0, 10));
  EXPECT_TRUE(sink.full(*local));
  EXPECT_TRUE(CollectSink(x_schema(), 0).satisfied(*CollectSink(x_schema(), 0).global_state(1)));
}

TEST(LimitSink, HandsTheNextPipelineTheFirstRowsInTheirPartitions) {
  LimitSink sink(7, x_schema());
  auto g = sink.global_state(2);
  feed(sink, *g, 1, {numbers(5, 5)});
  feed(sink, *g, 0, {numbers(0, 5)});
  std::shared_ptr<const Source> next = sink.finalize(*g);
  EXPECT_EQ(next->num_partitions(), 2);
  EXPECT_EQ(read_all(*next), iota(7));
}

TEST(RepartitionSink, CutsEveryRowIntoTheNewPartitions) {
  RepartitionSink sink(4, x_schema());
  auto g = sink.global_state(2);
  feed(sink, *g, 1, {numbers(6, 6)});
  feed(sink, *g, 0, {numbers(0, 6)});
  std::shared_ptr<const Source> next = sink.finalize(*g);
  EXPECT_EQ(next->num_partitions(), 4);
  EXPECT_EQ(read_all(*next), iota(12));
}

TEST(AggregateSink, MergesPartialsInPartitionOrderWhateverOrderTheyFinish) {
  Schema in({{"v", float64()}});
  auto batch = [&](double v) { return Batch(in, {Column::from(std::vector<double>{v})}); };
  std::vector<ExprPtr> aggs{detail::ExprAccess::node(col("v").sum().alias("s"))};
  Schema out({{"s", float64()}});
  AggregateSink sink(aggs, in, out);
  // In partition order the sum is (1e16 + 1) - 1e16 + 1 = 1; other orders give 0 or 2.
  auto sum_finishing = [&](std::vector<int> order) {
    auto g = sink.global_state(3);
    std::vector<double> parts{1e16, 1, -1e16};
    for (int p : order) feed(sink, *g, p, {batch(parts[static_cast<size_t>(p)])});
    std::shared_ptr<const Source> result = sink.finalize(*g);
    return result->open(0, 10)->next()->column(0).value<double>(0);
  };
  double in_order = sum_finishing({0, 1, 2});
  EXPECT_EQ(sum_finishing({2, 1, 0}), in_order);
  EXPECT_EQ(sum_finishing({1, 2, 0}), in_order);
}

TEST(AggregateSink, APartitionThatNeverFinishedIsLeftOut) {
  Schema in({{"x", int64()}});
  AggregateSink sink({detail::ExprAccess::node(col("x").sum().alias("s"))}, in,
                     Schema({{"s", int64()}}));
  auto g = sink.global_state(2);
  feed(sink, *g, 0, {numbers(1, 3)});  // 1 + 2 + 3
  std::shared_ptr<const Source> result = sink.finalize(*g);
  EXPECT_EQ(result->open(0, 10)->next()->column(0).value<int64_t>(0), 6);
}

TEST(FileSink, WritesOnePartPerPartitionAndRefusesAnIncompleteSet) {
  auto dir =
      std::filesystem::temp_directory_path() / ("ember_file_sink_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  FileSink sink(dir.string(), x_schema(), FileFormat::Csv);
  auto g = sink.global_state(2);
  feed(sink, *g, 1, {numbers(0, 3)});
  feed(sink, *g, 0, {numbers(3, 3)});
  EXPECT_EQ(sink.finalize(*g).num_rows(), 0);
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 2);

  auto incomplete = sink.global_state(3);
  feed(sink, *incomplete, 2, {numbers(0, 1)});
  EXPECT_THROW(sink.finalize(*incomplete), Error);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ember
