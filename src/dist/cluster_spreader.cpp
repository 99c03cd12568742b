// The cluster's partition spreader: which pipeline of a query runs on every rank, how explain()
// describes it, and the start of a spread run (dist/cluster_run.h) on rank 0.
#include "dist/cluster_spreader.h"

#include <algorithm>
#include <optional>
#include <string>

#include "dist/cluster_run.h"
#include "dist/pipeline_message.h"
#include "exec/physical_planner.h"
#include "exec/range_write.h"
#include "exec/sinks/shuffle_sink.h"
#include "plan/nodes/join_node.h"
#include "udf/process/wire_message.h"

namespace ember::dist {

namespace {

/// The pipeline a plan spreads (leftmost_pipeline), when it reads a source.
const Pipeline* spread_pipeline(const LogicalNode& optimized, const PhysicalPlan& plan,
                                size_t* at) {
  if (plan.pipelines.empty()) return nullptr;
  *at = leftmost_pipeline(optimized, plan);
  const Pipeline& p = plan.pipelines.at(*at);
  return p.source ? &p : nullptr;
}

/// The refs a chain that reads `output`'s joined buckets is encoded with, or null.
std::optional<ShuffledJoinRefs> shuffled_refs(const SpreadOutput& output, int ranks) {
  if (output.shuffled_join == nullptr) return std::nullopt;
  return ShuffledJoinRefs{output.shuffled_join, output.left_exchange, output.right_exchange, ranks,
                          output.buckets_per_rank};
}

/// The refs a plan whose join runs as a hash exchange is encoded with before its exchanges ran
/// (explain(), spread_ranks()), or null.
std::optional<ShuffledJoinRefs> planned_refs(const PhysicalPlan& plan, int ranks) {
  if (!plan.shuffle) return std::nullopt;
  const auto& exchange =
      static_cast<const ShuffleSink&>(*plan.pipelines.at(plan.shuffle->left).breaker);
  return ShuffledJoinRefs{plan.shuffle->join, 0, 0, ranks, exchange.buckets_per_rank()};
}

/// A join, as explain() names it.
std::string join_name(const LogicalNode& node) {
  const auto& join = static_cast<const JoinNode&>(node);
  std::string keys;
  for (const std::string& k : join.on) keys += (keys.empty() ? "" : ", ") + k;
  return std::string("HashJoin ") + join_type_name(join.type) + " on [" + keys + "]";
}

/// The spread pipeline, as explain() names it.
std::string pipeline_name(size_t at) {
  return at == 0 ? "the first pipeline"
                 : "pipeline " + std::to_string(at + 1) + " (the probe side of its joins)";
}

}  // namespace

std::unique_ptr<SpreadRun> ClusterSpreader::spread(const LogicalNode& optimized,
                                                   const PhysicalPlan& plan, QueryContext& query,
                                                   const SpreadOutput& output) {
  size_t at = 0;
  const Pipeline* p = spread_pipeline(optimized, plan, &at);
  if (ranks_ < 2 || !p || p->source->num_partitions() < 2) return nullptr;
  std::string why;
  bool partials = false;
  bool tail = false;
  const std::optional<ShuffledJoinRefs> refs = shuffled_refs(output, ranks_);
  const std::string pipeline =
      encode_first_pipeline(optimized, &why, &partials, &tail, refs ? &*refs : nullptr);
  if (pipeline.empty()) return nullptr;
  SpreadOutput where = output;
  where.ranges = output.ranges && tail;  // the ranks run the last pipeline over their ranges
  // The chain's UDFs, as the ranks plan them again: the query's from the pipeline's first on.
  if (refs) where.first_pool = std::max(0, plan.pipelines.at(at).first_pool);
  return start_cluster_run(transport_, next_query_++, plan, at, pipeline, partials, query, where);
}

const LogicalNode* ClusterSpreader::shuffled_join(const LogicalNode& optimized) {
  if (ranks_ < 2 || states_to_rank_0()) return nullptr;
  return pick_shuffled_join(optimized, ranks_);
}

std::unique_ptr<SpreadRun> ClusterSpreader::spread_join_side(const LogicalNode& join, bool left,
                                                             const PhysicalPlan& plan, size_t at,
                                                             QueryContext& query,
                                                             const SpreadOutput& output,
                                                             uint64_t* id) {
  const auto& j = static_cast<const JoinNode&>(join);
  const auto& exchange = static_cast<const ShuffleSink&>(*plan.pipelines.at(at).breaker);
  std::string why;
  const std::string pipeline =
      encode_join_side(left ? j.left() : j.right(), j.on, exchange.buckets_per_rank(), &why);
  if (pipeline.empty()) throw Error("internal: a join side that cannot travel: " + why);
  SpreadOutput where = output;
  where.files = false;
  where.ranges = false;
  where.first_pool = std::max(0, plan.pipelines.at(at).first_pool);
  *id = next_query_++;
  return start_cluster_run(transport_, *id, plan, at, pipeline, true, query, where);
}

void ClusterSpreader::forget_exchanges(const std::vector<uint64_t>& ids) {
  for (uint64_t id : ids) {
    process::MessageWriter out;
    out.begin(process::Op::Forget);
    out.put(id);
    for (int r = 1; r < ranks_; ++r) transport_.send(r, kTagQuery, out.bytes());
  }
}

PartitionSpreader::Spread ClusterSpreader::spread_ranks(const LogicalNode& optimized,
                                                        const PhysicalPlan& plan) {
  size_t at = 0;
  const Pipeline* p = spread_pipeline(optimized, plan, &at);
  if (!p) return {};
  const int n = p->source->num_partitions();
  std::string why;
  bool partials = false;
  bool tail = false;
  const std::optional<ShuffledJoinRefs> refs = planned_refs(plan, ranks_);
  if (n < 2 ||
      encode_first_pipeline(optimized, &why, &partials, &tail, refs ? &*refs : nullptr).empty())
    return {};
  // A group-by's write goes by range only when its groups are exchanged.
  const bool exchanged = p->breaker && p->breaker->exchanges_partials();
  return {std::min(n, ranks_), partials, at,
          tail && !ranges_disabled() && !(exchanged && states_to_rank_0())};
}

std::string ClusterSpreader::explain(const LogicalNode& optimized, const PhysicalPlan& plan) {
  size_t at = 0;
  const Pipeline* p = spread_pipeline(optimized, plan, &at);
  if (!p) return "nothing to read";
  const int n = p->source->num_partitions();
  const std::optional<ShuffledJoinRefs> refs = planned_refs(plan, ranks_);
  const std::string name =
      refs ? "pipeline " + std::to_string(at + 1) + " (the joined buckets)" : pipeline_name(at);
  std::string why;
  bool partials = false;
  bool tail = false;
  if (encode_first_pipeline(optimized, &why, &partials, &tail, refs ? &*refs : nullptr).empty())
    return name + " runs on rank 0 alone: " + why;
  if (n < 2) return name + " runs on rank 0 alone: its source has one partition";
  const int first = first_partitions_per_rank(n, ranks_);
  std::string out;
  if (refs)
    out = join_name(*refs->join) + " runs as a hash exchange of both sides (" +
          why_exchanged(*refs->join, ranks_) + "): pipelines " +
          std::to_string(plan.shuffle->right + 1) + " (its right side) and " +
          std::to_string(plan.shuffle->left + 1) +
          " (its left side) run on every rank, their partitions handed out as ranks ask, each "
          "partition's rows sent by the hash of the join keys to the rank that holds their "
          "bucket (" +
          std::to_string(refs->per_rank) +
          " per rank); each rank joins its own buckets as one machine joins. Then ";
  out += (at == 0 ? "the first pipeline's " : name + ": its ") + std::to_string(n) +
         " partitions run on " + std::to_string(std::min(n, ranks_)) + " ranks (";
  const std::string round_robin = "partition p on rank p % " + std::to_string(ranks_);
  if (refs)
    out += round_robin + ", which holds its bucket";
  else if (n <= first * ranks_)
    out += round_robin + ": too few to hand out on request";
  else
    out += std::to_string(first) + " each to start with, " + round_robin + ", the other " +
           std::to_string(n - first * ranks_) + " handed out as ranks ask for more";
  if (at > 0 && (!refs || plan.shuffle->right > 0))
    out += ", each rank building the joins' right sides itself";
  const bool exchange = partials && p->breaker && p->breaker->exchanges_partials();
  if (exchange)
    out +=
        "), each rank running its partitions into the breaker; a hash exchange sends each "
        "partition's groups by key to the rank that merges them, each rank finalizes its "
        "share, and rank 0 merges the shares in key order";
  else if (partials)
    out += "), each rank running its partitions into the breaker and sending rank 0 their " +
           p->breaker->partials_summary() + ", merged there in partition order";
  else
    out += "), their rows gathered on rank 0 in partition order";
  if (!partials && p->breaker && p->breaker->rows_per_partition() >= 0)
    out += ", each rank ending a partition once it has sent " +
           std::to_string(p->breaker->rows_per_partition()) + " rows (the limit)";
  if (!plan.pools.empty() && !lending_disabled())
    out +=
        "; its UDF batches run on their own rank's actors, and once every partition is "
        "handed out, on idle ranks' actors too while their own rank's are busy";
  const bool by_range = partials && tail && !ranges_disabled() && writes_by_range(plan, at) &&
                        !(p->breaker->exchanges_partials() && states_to_rank_0());
  if (by_range)
    out += std::string("; a write after its breaker (write_*) is spread by key range: ") +
           (exchange ? "rank 0 cuts the groups at keys from its share"
                     : "each rank keeps its partitions sorted, rank 0 cuts them at keys from "
                       "its own") +
           ", each rank sends each range's rows to its rank, and rank r runs the last pipeline "
           "over range r and writes part r";
  else if (plan.pipelines.size() > at + 1)
    out += "; the pipelines after its breaker run on rank 0";
  return out;
}

}  // namespace ember::dist
