// The relational breakers on their own, partitions driven by hand in the orders the pipeline
// could produce: group-by, sort / top-k, and a join's build, probe and tail.
#include <gtest/gtest.h>

#include "exec/operators/join_probe_operator.h"
#include "exec/sinks/group_by_sink.h"
#include "exec/sinks/join_build_sink.h"
#include "exec/sinks/join_tail_sink.h"
#include "exec/sinks/sort_sink.h"
#include "exec_test_kit.h"
#include "expr/expr_access.h"

namespace ember {
namespace {

using namespace test;

void feed(const Sink& sink, GlobalSinkState& g, int p, const std::vector<Batch>& batches) {
  auto local = sink.local_state(g, p);
  for (const auto& b : batches) sink.sink(g, *local, b);
  sink.combine(g, *local);
}

Batch read_one(const Source& s) {
  std::vector<Batch> parts;
  for (int p = 0; p < s.num_partitions(); ++p) {
    auto r = s.open(p, 1 << 20);
    while (auto b = r->next()) parts.push_back(*b);
  }
  return Batch::concat(parts);
}

ExprPtr node(const Expr& e) { return detail::ExprAccess::node(e); }

TEST(GroupBySink, FloatSumsMergeInPartitionOrderWhateverOrderTheyFinish) {
  Schema in({{"k", int64()}, {"v", float64()}});
  auto batch = [&](double v) {
    return Batch(in, {Column::from(std::vector<int64_t>{7}), Column::from(std::vector<double>{v})});
  };
  GroupBySink sink({node(col("k"))}, {node(col("v").sum().alias("s"))}, in,
                   Schema({{"k", int64()}, {"s", float64()}}));
  auto sum_finishing = [&](std::vector<int> order) {
    auto g = sink.global_state(3);
    std::vector<double> parts{1e16, 1, -1e16};
    for (int p : order) feed(sink, *g, p, {batch(parts[static_cast<size_t>(p)])});
    return read_one(*sink.finalize(*g)).column(1).value<double>(0);
  };
  const double in_order = sum_finishing({0, 1, 2});
  EXPECT_EQ(sum_finishing({2, 1, 0}), in_order);
  EXPECT_EQ(sum_finishing({1, 2, 0}), in_order);
}

TEST(SortSink, TopKCompactsEachPartitionAndKeepsTiesInInputOrder) {
  // 200K rows in 4 batches per partition: compaction runs several times while sinking.
  Schema in({{"x", int64()}, {"id", int64()}});
  auto batch = [&](int64_t start) {
    std::vector<int64_t> x, id;
    for (int64_t i = start; i < start + 50000; ++i) x.push_back(i % 3), id.push_back(i);
    return Batch(in, {Column::from(x), Column::from(id)});
  };
  SortSink sink({node(col("x"))}, {KeyOrder{}}, in, 5);
  auto g = sink.global_state(2);
  feed(sink, *g, 1, {batch(200000), batch(250000), batch(300000), batch(350000)});
  feed(sink, *g, 0, {batch(0), batch(50000), batch(100000), batch(150000)});
  Batch top = read_one(*sink.finalize(*g));
  ASSERT_EQ(top.num_rows(), 5);
  // x == 0 first; among those, partition 0's rows in order: ids 0, 3, 6, 9, 12.
  for (int64_t r = 0; r < 5; ++r) EXPECT_EQ(top.column(1).value<int64_t>(r), 3 * r);
}

TEST(JoinSinks, BuildProbeAndTailOfAFullJoin) {
  Schema right({{"k", int64()}, {"r", int64()}});
  Schema left({{"k", int64()}, {"l", int64()}});
  auto table = std::make_shared<JoinHashTable>(std::vector<int>{0});
  auto spill = std::make_shared<JoinSpill>(std::vector<int>{0}, right, std::vector<int>{0}, left);
  JoinBuildSink build(table, spill, right);
  auto g = build.global_state(2);
  feed(build, *g, 1,
       {Batch(right, {Column::from(std::vector<std::optional<int64_t>>{2, std::nullopt}),
                      Column::from(std::vector<int64_t>{21, 22})})});
  feed(build, *g, 0,
       {Batch(right, {Column::from(std::vector<int64_t>{1, 1}),
                      Column::from(std::vector<int64_t>{11, 12})})});
  build.finalize(*g);

  JoinLayout layout;
  layout.type = JoinType::Full;
  layout.output = Schema({{"k", int64()}, {"l", int64()}, {"r", int64()}});
  layout.left_keys = {0};
  layout.right_keys = {0};
  layout.left_columns = 2;
  layout.right_columns = {1};
  JoinProbeOperator probe(table, layout);
  Batch out = probe.execute(
      Batch(left, {Column::from(std::vector<std::optional<int64_t>>{1, 3, std::nullopt}),
                   Column::from(std::vector<int64_t>{100, 300, 400})}));
  // Left row k=1 matches both right rows, in build (partition) order; 3 and null match none.
  ASSERT_EQ(out.num_rows(), 4);
  EXPECT_EQ(out.column(2).get(0), Value(int64_t{11}));
  EXPECT_EQ(out.column(2).get(1), Value(int64_t{12}));
  EXPECT_TRUE(out.column(2).is_null(2));
  EXPECT_TRUE(out.column(2).is_null(3));

  JoinTailSink tail(table, layout);
  auto tg = tail.global_state(1);
  feed(tail, *tg, 0, {out});
  Batch all = read_one(*tail.finalize(*tg));
  // Then the right rows nothing matched: k=2 (its key filled in) and the null key.
  ASSERT_EQ(all.num_rows(), 6);
  EXPECT_EQ(all.column(0).get(4), Value(int64_t{2}));
  EXPECT_TRUE(all.column(1).is_null(4));
  EXPECT_EQ(all.column(2).get(4), Value(int64_t{21}));
  EXPECT_TRUE(all.column(0).is_null(5));
  EXPECT_EQ(all.column(2).get(5), Value(int64_t{22}));
}

TEST(JoinTailSink, AnotherRanksMatchesTravelAsNewRowNumbersOnly) {
  // The same right side on two ranks: the other rank's probe matches key 2; rank 0 adopts its
  // list and adds only keys 1 and 3 as unmatched.
  const Schema right({{"k", int64()}, {"r", int64()}});
  const Batch rows(right, {Column::from(std::vector<int64_t>{1, 2, 3}),
                           Column::from(std::vector<int64_t>{10, 20, 30})});
  auto here = std::make_shared<JoinHashTable>(std::vector<int>{0});
  auto there = std::make_shared<JoinHashTable>(std::vector<int>{0});
  here->build(rows);
  there->build(rows);
  JoinLayout layout;
  layout.type = JoinType::Right;
  layout.output = Schema({{"k", int64()}, {"l", int64()}, {"r", int64()}});
  layout.left_keys = {0};
  layout.right_keys = {0};
  layout.left_columns = 2;
  layout.right_columns = {1};
  const Schema left({{"k", int64()}, {"l", int64()}});
  JoinProbeOperator(there, layout)
      .execute(Batch(
          left, {Column::from(std::vector<int64_t>{2}), Column::from(std::vector<int64_t>{200})}));
  const JoinTailSink sender(there, layout);
  auto sent = sender.global_state(2);
  auto part = sender.local_state(*sent, 0);
  const std::string first = sender.encode_partial(*sent, *part);
  // The build side's size and one row number; a later partition with no new match: the size.
  EXPECT_EQ(first.size(), 2 * sizeof(int64_t));
  EXPECT_EQ(sender.encode_partial(*sent, *sender.local_state(*sent, 1)).size(), sizeof(int64_t));

  const JoinTailSink receiver(here, layout);
  auto g = receiver.global_state(1);
  auto local = receiver.local_state(*g, 0);
  receiver.adopt_partial(*g, *local, first);
  receiver.combine(*g, *local);
  const Batch all = read_one(*receiver.finalize(*g));
  ASSERT_EQ(all.num_rows(), 2);
  EXPECT_EQ(all.column(0).get(0), Value(int64_t{1}));
  EXPECT_EQ(all.column(0).get(1), Value(int64_t{3}));

  // A right side of another size where it is adopted: every rank must read the same rows.
  auto fewer = std::make_shared<JoinHashTable>(std::vector<int>{0});
  fewer->build(rows.slice(0, 2));
  const JoinTailSink other(fewer, layout);
  auto og = other.global_state(1);
  try {
    other.adopt_partial(*og, *other.local_state(*og, 0), first);
    FAIL() << "a list for another right side was adopted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("3 rows on another rank and 2 on rank 0"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ember
