// Aggregates whose partitions ran elsewhere: a partition sunk into another copy of the sink,
// shipped as bytes (encode_partial) and adopted (adopt_partial) gives exactly what sinking its
// rows here gives, for every aggregate function, null keys, spilled partitions and float sums
// whose value depends on the merge order.
#include <gtest/gtest.h>

#include "exec/relational/spill_file.h"
#include "exec/sinks/aggregate_sink.h"
#include "exec/sinks/group_by_sink.h"
#include "exec/sinks/sort_sink.h"
#include "exec_test_kit.h"
#include "expr/expr_access.h"

namespace ember {
namespace {

using namespace test;

ExprPtr node(const Expr& e) { return detail::ExprAccess::node(e); }

/// Every value of every row the source yields, in order (floats compared bit for bit).
using Rows = std::vector<std::vector<Value>>;
Rows read_all(const Source& s) {
  Rows rows;
  for (int p = 0; p < s.num_partitions(); ++p) {
    auto r = s.open(p, 1 << 20);
    while (auto b = r->next())
      for (int64_t i = 0; i < b->num_rows(); ++i) {
        auto& row = rows.emplace_back();
        for (int c = 0; c < b->num_columns(); ++c) row.push_back(b->column(c).get(i));
      }
  }
  return rows;
}

const Schema kInput({{"k", int64()}, {"v", float64()}, {"s", utf8()}});

/// Partition p's rows: keys with nulls, floats whose sum depends on the order they are added
/// in, strings with repeats.
std::vector<Batch> partition_rows(int p) {
  std::vector<Batch> batches;
  for (int b = 0; b < 3; ++b) {
    ColumnBuilder k(int64(), 0), v(float64(), 0), s(utf8(), 0);
    for (int i = 0; i < 500; ++i) {
      const int row = p * 10000 + b * 500 + i;
      if (row % 29 == 0)
        k.append_value(Value{});
      else
        k.append_value(Value{int64_t{row % 37}});
      v.append_value(row % 11 == 0 ? Value{} : Value{(row % 3 == 0 ? 1e15 : 0.1) * (p + 1)});
      s.append_value(Value{"s" + std::to_string(row % 13)});
    }
    batches.push_back(Batch(kInput, {k.finish(), v.finish(), s.finish()}));
  }
  return batches;
}

/// The group-by's result over partitions 0..3, partitions in `shipped` run into a second copy
/// of the sink and adopted as bytes. `budget`: the sinks' memory budget (small: they spill, and
/// the shipped partitions' later batches travel as rows, counted in `travelled`).
Rows group_by(const std::vector<int>& shipped, int64_t budget, int* travelled = nullptr) {
  int none = 0;
  if (!travelled) travelled = &none;
  const Expr k = col("k"), v = col("v"), s = col("s");
  std::vector<ExprPtr> aggregates{
      node(v.sum().alias("sum")),     node(v.mean().alias("mean")),
      node(k.min().alias("min")),     node(s.max().alias("max")),
      node(v.count().alias("count")), node(s.count_distinct().alias("distinct")),
      node(s.first().alias("first")), node(v.list().alias("list"))};
  Schema result({{"k", int64()},
                 {"sum", float64()},
                 {"mean", float64()},
                 {"min", int64()},
                 {"max", utf8()},
                 {"count", int64()},
                 {"distinct", int64()},
                 {"first", utf8()},
                 {"list", list(float64())}});
  GroupBySink here({node(k)}, aggregates, kInput, result);
  GroupBySink there({node(k)}, aggregates, kInput, result);
  auto global = here.global_state(4);
  auto elsewhere = there.global_state(4);
  global->memory_budget_bytes = elsewhere->memory_budget_bytes = budget;
  for (int p = 3; p >= 0; --p) {  // the order partitions end in does not matter
    auto local = here.local_state(*global, p);
    if (std::find(shipped.begin(), shipped.end(), p) != shipped.end()) {
      // As a worker rank runs it: into its own state until that is full, then as rows.
      auto remote = there.local_state(*elsewhere, p);
      for (const Batch& b : partition_rows(p)) {
        if (there.partial_full(*elsewhere, *remote)) {
          here.sink_after_partial(*global, *local, b);
          ++*travelled;
        } else {
          there.sink(*elsewhere, *remote, b);
        }
      }
      const std::string bytes = there.encode_partial(*elsewhere, *remote);
      here.adopt_partial(*global, *local, bytes);
    } else {
      for (const Batch& b : partition_rows(p)) here.sink(*global, *local, b);
    }
    here.combine(*global, *local);
  }
  return read_all(*here.finalize(*global));
}

/// As a cluster's exchange runs it: every partition sunk into another copy of the sink (with an
/// unlimited budget there), its state shipped as one share holding every key, and adopted here
/// under `budget`.
Rows exchanged(int64_t budget) {
  const Expr k = col("k"), v = col("v"), s = col("s");
  std::vector<ExprPtr> aggregates{node(v.sum().alias("sum")), node(s.first().alias("first")),
                                  node(v.list().alias("list"))};
  Schema result({{"k", int64()}, {"sum", float64()}, {"first", utf8()}, {"list", list(float64())}});
  GroupBySink here({node(k)}, aggregates, kInput, result);
  GroupBySink there({node(k)}, aggregates, kInput, result);
  auto global = here.global_state(4);
  auto elsewhere = there.global_state(4);
  global->memory_budget_bytes = budget;
  for (int p : {2, 0, 3, 1}) {
    auto remote = there.local_state(*elsewhere, p);
    for (const Batch& b : partition_rows(p)) there.sink(*elsewhere, *remote, b);
    const std::vector<Sink::Share> shares = there.encode_partial_shares(*elsewhere, *remote, 1);
    auto local = here.local_state(*global, p);
    here.adopt_partial(*global, *local, shares.at(0).bytes);
    here.combine(*global, *local);
  }
  return read_all(*here.finalize(*global));
}

TEST(PartialStates, AdoptedSharesPastTheBudgetWaitOnDiskAndMergeInPartitionOrder) {
  const int64_t before = SpillFile::files_created();
  const Rows in_memory = exchanged(0);
  ASSERT_EQ(in_memory.size(), 38u);
  EXPECT_EQ(SpillFile::files_created(), before);  // no budget: nothing on disk
  // A budget below one partition's groups: every adopted share goes to disk, one file per
  // hash partition, and is merged from there in partition order (the float sums and first()
  // tell), one hash partition at a time.
  EXPECT_EQ(exchanged(1024), in_memory);
  EXPECT_GE(SpillFile::files_created() - before, GroupBySink::kMergePartitions);
  // About one partition's groups: the first adopted (partition 2) stays in memory, the others
  // go to disk, and partition 2 is still merged after 0 and 1.
  const int64_t mixed = SpillFile::files_created();
  EXPECT_EQ(exchanged(12 << 10), in_memory);
  EXPECT_GT(SpillFile::files_created(), mixed);
  EXPECT_EQ(SpillFile::files_open(), 0);
}

TEST(PartialStates, AGroupByOfShippedPartitionsEqualsTheLocalOneForEveryAggregate) {
  const Rows local = group_by({}, 0);
  ASSERT_EQ(local.size(), 38u);  // 37 keys and null
  EXPECT_EQ(group_by({1, 3}, 0), local);
  EXPECT_EQ(group_by({0, 1, 2, 3}, 0), local);
}

TEST(PartialStates, APartitionWhoseStateFillsItsBudgetSendsItsLaterRowsAsRows) {
  // A budget of a few groups per partition: each partition's state is full after its first
  // batch; the later batches of a shipped one travel as rows, which the adopting side spills
  // and aggregates after the state, as a local run under the same budget does (the float sums
  // depend on where a partition's rows are cut).
  const Rows local = group_by({}, 4 * 1024);
  int travelled = 0;
  EXPECT_EQ(group_by({0, 2}, 4 * 1024, &travelled), local);
  EXPECT_EQ(travelled, 4);  // two of each shipped partition's three batches
}

TEST(PartialStates, AGlobalAggregateOfShippedPartitionsEqualsTheLocalOne) {
  const Expr v = col("v"), s = col("s");
  std::vector<ExprPtr> aggregates{node(v.sum()), node(v.mean().alias("m")),
                                  node(s.min().alias("lo")), node(v.count().alias("n"))};
  Schema result({{"v", float64()}, {"m", float64()}, {"lo", utf8()}, {"n", int64()}});
  auto run = [&](bool ship) {
    AggregateSink here(aggregates, kInput, result), there(aggregates, kInput, result);
    auto global = here.global_state(3);
    auto elsewhere = there.global_state(3);
    for (int p = 0; p < 3; ++p) {
      auto local = here.local_state(*global, p);
      if (ship && p != 1) {
        auto remote = there.local_state(*elsewhere, p);
        for (const Batch& b : partition_rows(p)) there.sink(*elsewhere, *remote, b);
        here.adopt_partial(*global, *local, there.encode_partial(*elsewhere, *remote));
      } else {
        for (const Batch& b : partition_rows(p)) here.sink(*global, *local, b);
      }
      here.combine(*global, *local);
    }
    return read_all(*here.finalize(*global));
  };
  EXPECT_EQ(run(true), run(false));
}

TEST(PartialStates, ATopKOfShippedPartitionsKeepsTiesInInputOrder) {
  // Key k % 37 descending: many ties, which must come out partition by partition, row by row.
  std::vector<ExprPtr> keys{node(col("k"))};
  auto run = [&](bool ship) {
    SortSink here(keys, {KeyOrder{true, false}}, kInput, 50);
    SortSink there(keys, {KeyOrder{true, false}}, kInput, 50);
    auto global = here.global_state(4);
    auto elsewhere = there.global_state(4);
    for (int p = 0; p < 4; ++p) {
      auto local = here.local_state(*global, p);
      if (ship && p % 2 == 0) {
        auto remote = there.local_state(*elsewhere, p);
        for (const Batch& b : partition_rows(p)) there.sink(*elsewhere, *remote, b);
        here.adopt_partial(*global, *local, there.encode_partial(*elsewhere, *remote));
      } else {
        for (const Batch& b : partition_rows(p)) here.sink(*global, *local, b);
      }
      here.combine(*global, *local);
    }
    return read_all(*here.finalize(*global));
  };
  const Rows local = run(false);
  ASSERT_EQ(local.size(), 50u);
  EXPECT_EQ(run(true), local);
}

TEST(PartialStates, BytesThatAreNoPartialAreAnErrorNotAWrongResult) {
  GroupBySink sink({node(col("k"))}, {node(col("v").sum().alias("s"))}, kInput,
                   Schema({{"k", int64()}, {"s", float64()}}));
  auto global = sink.global_state(1);
  auto local = sink.local_state(*global, 0);
  for (const Batch& b : partition_rows(0)) sink.sink(*global, *local, b);
  std::string bytes = sink.encode_partial(*global, *local);
  auto fresh = sink.local_state(*global, 0);
  EXPECT_THROW(sink.adopt_partial(*global, *fresh, bytes.substr(0, bytes.size() / 2)), Error);
  EXPECT_THROW(sink.adopt_partial(*global, *fresh, bytes + "x"), Error);
}

}  // namespace
}  // namespace ember
