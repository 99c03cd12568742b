// A write spread by key range: rank 0's splitters, cut and exchange, and any rank's write of its
// range as its part of the output.
#include "exec/range_write.h"

#include <algorithm>

#include "core/cancelled.h"
#include "exec/operators/actor_pool_operator.h"
#include "exec/pipeline_breaker.h"
#include "exec/pipeline_runner.h"
#include "exec/relational/key_ranges.h"

namespace ember {

bool writes_by_range(const PhysicalPlan& plan, size_t spread_at) {
  if (spread_at + 2 != plan.pipelines.size()) return false;
  const Pipeline& p = plan.pipelines[spread_at];
  // An exchanged group-by's groups, or a sort's runs, kept on the ranks that made them.
  if (!p.breaker || !p.breaker->range_keys()) return false;
  const Pipeline& last = plan.pipelines.back();
  return last.tails.empty() &&
         std::none_of(last.stages.begin(), last.stages.end(), [](const auto& stage) {
           return dynamic_cast<const ActorPoolOperator*>(stage.get()) != nullptr;
         });
}

std::unique_ptr<BatchReader> RangePartition::open(int p, int64_t batch_rows) const {
  if (p != index_)
    throw Error("internal: partition " + std::to_string(p) + " of a key range is another rank's");
  return range_->open(0, batch_rows);
}

std::string RangePartition::describe() const {
  return "key range " + std::to_string(index_ + 1) + " of " + std::to_string(count_) + " of " +
         range_->describe();
}

void write_range(QueryContext& query, const Pipeline& pipeline, std::shared_ptr<const Source> range,
                 int rank, int ranks, const Sink& output, GlobalSinkState& state, int threads) {
  const RangePartition source(std::move(range), rank, ranks);
  const std::vector<int> mine{rank};
  run_pipeline(query, pipeline, source, output, state, threads, &mine);
}

void write_own_range(QueryContext& query, const PhysicalPlan& plan, size_t at,
                     GlobalSinkState& breaker_state, SpreadRun& spread, const Sink& output,
                     GlobalSinkState& state, int threads) {
  if (query.cancelled() || !spread.wait_partitions_ended()) return;
  try {
    const PipelineBreaker& breaker = *plan.pipelines.at(at).breaker;
    const RangeKeys keys = *breaker.range_keys();
    const Schema& schema = plan.pipelines.at(at + 1).input;
    const int ranks = spread.ranks();
    // From here on the output's rows are counted: the ranks' writes, this one's too.
    query.rows_out = 0;
    const std::vector<TaggedRun> own = breaker.key_runs(breaker_state);
    const Batch splitters = range_splitters(own, schema, keys, ranks);
    // Per rank: this rank's rows of its range, run by run.
    std::vector<std::vector<TaggedRun>> ranges(static_cast<size_t>(ranks));
    for (const TaggedRun& run : own) {
      std::vector<Batch> cut = split_at_splitters(run.rows, keys, splitters, ranks);
      for (int r = 0; r < ranks; ++r)
        ranges[static_cast<size_t>(r)].push_back({run.tag, std::move(cut[static_cast<size_t>(r)])});
    }
    std::vector<TaggedRun> pieces = spread.exchange_ranges(splitters, ranges, schema);
    for (TaggedRun& run : ranges[0]) pieces.push_back(std::move(run));
    write_range(query, plan.pipelines.back(),
                merge_key_ordered(schema, keys, std::move(pieces), "KeyRange"), 0, ranks, output,
                state, threads);
  } catch (const Cancelled&) {
    // The query ended elsewhere: its error is the one it reports.
  } catch (...) {
    query.fail(std::current_exception());
  }
}

}  // namespace ember
