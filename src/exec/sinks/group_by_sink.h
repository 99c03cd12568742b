// The breaker of a hash group-by: each partition pre-aggregates into its own table; finished
// tables are split by key hash, and each hash partition merges on its own thread.
#pragma once

#include <functional>
#include <vector>

#include "exec/pipeline_breaker.h"
#include "exec/relational/group_table.h"
#include "exec/relational/grouped_aggregate.h"
#include "exec/relational/sorted_run.h"
#include "expr/expr_node.h"

namespace ember {

/// Groups rows by the values of its key expressions (nulls are one group) and computes each
/// aggregate per group. The next pipeline reads one row per group, sorted by the keys
/// (ascending, nulls last). With no keys it is a global aggregate: exactly one row.
class GroupBySink final : public PipelineBreaker {
 public:
  /// `keys` and `aggregates` are expressions over `input`; `result` has the keys' columns,
  /// then the aggregates'.
  GroupBySink(std::vector<ExprPtr> keys, std::vector<ExprPtr> aggregates, const Schema& input,
              Schema result);
  std::unique_ptr<GlobalSinkState> global_state(int num_partitions) const override;
  std::unique_ptr<LocalSinkState> local_state(GlobalSinkState& global,
                                              int partition) const override;
  void sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const override;
  /// Splits the partition's table by key hash (on the partition's pipeline thread).
  void combine(GlobalSinkState& global, LocalSinkState& local) const override;
  /// A partition's groups travel as one table per hash partition (spilled rows aggregated in),
  /// so the rank that adopts them merges them as it merges its own partitions'.
  bool ships_partials() const override { return true; }
  /// Once the partition's table passed its share of the budget (where a local run would spill
  /// its later rows), or 512 MiB (a message between ranks stays well under MPI's 2 GiB).
  bool partial_full(GlobalSinkState& global, LocalSinkState& local) const override;
  /// Rows that came once the partition's table was full where it ran: spilled, and aggregated
  /// after its table, as a local run under the same budget does with the rows it spills.
  void sink_after_partial(GlobalSinkState& global, LocalSinkState& local,
                          const Batch& batch) const override;
  std::string encode_partial(GlobalSinkState& global, LocalSinkState& local) const override;
  /// With keys: the hash partitions are dealt out to the shares (hash partition r to share
  /// r mod shares), so each rank merges about 1/shares of the groups.
  bool exchanges_partials() const override { return !keys_.empty(); }
  /// With keys: the groups are in key order, the keys their leading columns.
  std::optional<RangeKeys> range_keys() const override;
  /// The groups finalized, one run.
  std::vector<TaggedRun> key_runs(GlobalSinkState& global) const override;
  std::vector<Share> encode_partial_shares(GlobalSinkState& global, LocalSinkState& local,
                                           int shares) const override;
  void adopt_partial(GlobalSinkState& global, LocalSinkState& local,
                     std::string_view bytes) const override;
  /// Merges each hash partition's tables in partition order (so float sums are reproducible),
  /// hash partitions in parallel; then sorts the groups by key. When the sink spilled, each hash
  /// partition's sorted groups go to disk and the next pipeline reads them merged (one
  /// partition), so the groups never have to fit in memory together. InvalidArgument when an
  /// int64 sum overflows.
  std::shared_ptr<const Source> finalize(GlobalSinkState& global) const override;
  /// This rank's groups and the other ranks' (each in key order), merged in key order: one
  /// partition.
  std::shared_ptr<const Source> finalize_shares(GlobalSinkState& global,
                                                std::vector<Batch> others) const override;

  /// Hash partitions the partials are merged in.
  static constexpr int kMergePartitions = 16;

 private:
  /// A partition's state as another rank adopts it, one hash partition r at a time, in order:
  /// `ship(r, table, later)` gets its table's groups of r and the groups of the rows of r it
  /// spilled (read back and removed, one hash partition's at a time; empty if none).
  void ship(LocalSinkState& local,
            const std::function<void(int r, const GroupTable& table, const GroupTable& later)>&
                ship) const;
  /// The partition's table split by hash partition.
  std::vector<GroupTable> split(const GroupTable& table) const;
  /// Hash partition r's groups from every input partition (its table, then what it spilled),
  /// in input partition order.
  GroupTable merge_hash_partition(GlobalSinkState& global, size_t r) const;
  /// The groups of `tables` as result rows sorted by key, the key columns beside them.
  SortedRun groups_in_key_order(const std::vector<GroupTable>& tables) const;

  std::vector<ExprPtr> keys_;
  std::vector<ExprPtr> inputs_;  ///< each aggregate's input expression
  std::vector<GroupedAggregate> prototype_;
  Schema result_;
};

}  // namespace ember
