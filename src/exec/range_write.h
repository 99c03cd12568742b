// A write spread by key range (docs/cluster.md): after an exchanged group-by every rank holds
// its finalized share of the groups in key order, after a sort its partitions' sorted runs;
// what each holds is cut into one key range per rank at splitters rank 0 picks, each range goes
// to its rank, and rank r runs the last pipeline over its range into the output's part r, so
// that the parts, read in order, hold the rows in the order one machine's write would.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "exec/partition_spreading.h"
#include "exec/physical_plan.h"
#include "exec/query_context.h"
#include "plan/source.h"

namespace ember {

/// Whether the pipeline after pipeline `spread_at` is the last, after a breaker whose rows can
/// be cut into key ranges (PipelineBreaker::range_keys), and calls no UDF: every rank may then
/// write one key range of it (SpreadOutput::ranges).
bool writes_by_range(const PhysicalPlan& plan, size_t spread_at);

/// One rank's key range as partition `index` of `count` (the output's part `index`): the only
/// partition of it that opens; the others belong to other ranks.
class RangePartition final : public Source {
 public:
  RangePartition(std::shared_ptr<const Source> range, int index, int count)
      : range_(std::move(range)), index_(index), count_(count) {}
  const Schema& schema() const override { return range_->schema(); }
  int num_partitions() const override { return count_; }
  std::unique_ptr<BatchReader> open(int p, int64_t batch_rows) const override;
  std::string describe() const override;
  void accept(SourceVisitor& v) const override { v.visit_intermediate(*this); }

 private:
  std::shared_ptr<const Source> range_;
  int index_;
  int count_;
};

/// Runs `pipeline` (the query's last, no source of its own) over `range` as partition `rank` of
/// `ranks` into `output`, whose `state` spans `ranks` partitions.
void write_range(QueryContext& query, const Pipeline& pipeline, std::shared_ptr<const Source> range,
                 int rank, int ranks, const Sink& output, GlobalSinkState& state, int threads);

/// Rank 0's part of a write spread by key range (SpreadRun::writes_ranges), while the other
/// ranks end theirs: once every partition of pipeline `at` has ended, takes this rank's runs of
/// `breaker_state` (PipelineBreaker::key_runs), cuts them at splitters sampled from them,
/// exchanges the ranges and writes range 0 through the last pipeline into `output` (`state`
/// spans one partition per rank). Returns at once when the query has ended.
void write_own_range(QueryContext& query, const PhysicalPlan& plan, size_t at,
                     GlobalSinkState& breaker_state, SpreadRun& spread, const Sink& output,
                     GlobalSinkState& state, int threads);

}  // namespace ember
