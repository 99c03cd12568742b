// The physical plan: pipelines of operators from a source to a sink, and the actor pools.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "exec/async_operator.h"
#include "exec/pipeline_breaker.h"
#include "exec/streaming_operator.h"
#include "plan/source.h"
#include "udf/udf_spec.h"

namespace ember {

struct LogicalNode;

/// Rows that enter a pipeline after every partition of its source has ended, just past one of
/// its streaming operators: a grace hash join's spilled partitions, joined once its probe side
/// has ended, go on through what follows the join.
struct PipelineTail {
  std::shared_ptr<const Source> source;
  size_t segment = 0;  ///< the segment that holds the operator they follow
  size_t after = 0;    ///< how many of that segment's operators they skip
};

/// One pipeline: rows stream from its source through its operators into its sink.
struct Pipeline {
  /// Where partitions come from; null: the previous pipeline's breaker's output.
  std::shared_ptr<const Source> source;
  /// The streaming operators, cut at each asynchronous one: segments[k] feeds stages[k], and
  /// the last segment feeds the sink (so segments.size() == stages.size() + 1).
  std::vector<std::vector<std::shared_ptr<const StreamingOperator>>> segments{1};
  std::vector<std::shared_ptr<const AsyncOperator>> stages;
  /// The breaker this pipeline ends in; null: the query's output sink.
  std::shared_ptr<const PipelineBreaker> breaker;
  Schema schema;  ///< the rows the sink receives
  Schema input;   ///< the rows its source (or the previous breaker) gives
  /// Run in order after the source's partitions, into the same sink state.
  std::vector<PipelineTail> tails;
  /// The index in PhysicalPlan::pools of the first pool its operators call (the rest follow
  /// in order), or -1 when it calls none.
  int first_pool = -1;
  /// What it does, in order, one logical node's description each (explain()).
  std::vector<std::string> steps;

  /// The part of this pipeline that `tail`'s rows go through: what follows its operator.
  Pipeline rest(const PipelineTail& tail) const {
    Pipeline r;
    r.segments.assign(segments.begin() + static_cast<std::ptrdiff_t>(tail.segment), segments.end());
    auto& first = r.segments.front();
    first.erase(first.begin(), first.begin() + static_cast<std::ptrdiff_t>(tail.after));
    r.stages.assign(stages.begin() + static_cast<std::ptrdiff_t>(tail.segment), stages.end());
    r.breaker = breaker;
    r.schema = schema;
    return r;
  }

  void add(std::shared_ptr<const StreamingOperator> op) {
    segments.back().push_back(std::move(op));
  }
  void add(std::shared_ptr<const AsyncOperator> op) {
    stages.push_back(std::move(op));
    segments.emplace_back();
  }
};

/// A join the cluster runs as a hash exchange of both sides (ShuffleChoice): the pipelines that
/// end in each side's exchange, and the one that reads every rank's joined buckets.
struct ShuffledJoinPipelines {
  const LogicalNode* join = nullptr;  ///< the JoinNode of the plan it was made from
  size_t right = 0;                   ///< ends in the right side's ShuffleSink
  size_t left = 0;                    ///< ends in the left side's ShuffleSink
  size_t joined = 0;  ///< reads the BucketJoinSource: the pipeline the cluster spreads
};

struct PhysicalPlan {
  std::vector<Pipeline> pipelines;  ///< run in order; the last ends in the output sink
  /// The actor pools the query starts before any pipeline runs (ActorPoolOperator::pool).
  std::vector<std::shared_ptr<const UdfSpec>> pools;
  /// The url_download steps, by UrlDownloadOperator::download (their names in
  /// QueryResult::rejected). Numbered, as the pools are, in the order the planner meets them:
  /// the first pipeline's first, so that a rank given only that pipeline numbers them alike.
  std::vector<std::string> downloads;
  Schema schema;  ///< the query's output
  /// Set when a join runs as a hash exchange of both sides.
  std::optional<ShuffledJoinPipelines> shuffle;
};

}  // namespace ember
