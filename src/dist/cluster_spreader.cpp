// The cluster's partition spreader: which pipeline of a query runs on every rank, how explain()
// describes it, and the start of a spread run (dist/cluster_run.h) on rank 0.
#include "dist/cluster_spreader.h"

#include <algorithm>
#include <string>

#include "dist/cluster_run.h"
#include "dist/pipeline_message.h"
#include "exec/physical_planner.h"
#include "exec/range_write.h"

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
  const std::string pipeline = encode_first_pipeline(optimized, &why, &partials, &tail);
  if (pipeline.empty()) return nullptr;
  SpreadOutput where = output;
  where.ranges = output.ranges && tail;  // the ranks run the last pipeline over their ranges
  return start_cluster_run(transport_, next_query_++, plan, at, pipeline, partials, query, where);
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
  if (n < 2 || encode_first_pipeline(optimized, &why, &partials, &tail).empty()) return {};
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
  const std::string name = pipeline_name(at);
  std::string why;
  bool partials = false;
  bool tail = false;
  if (encode_first_pipeline(optimized, &why, &partials, &tail).empty())
    return name + " runs on rank 0 alone: " + why;
  if (n < 2) return name + " runs on rank 0 alone: its source has one partition";
  const int first = first_partitions_per_rank(n, ranks_);
  std::string out = (at == 0 ? "the first pipeline's " : name + ": its ") + std::to_string(n) +
                    " partitions run on " + std::to_string(std::min(n, ranks_)) + " ranks (";
  const std::string round_robin = "partition p on rank p % " + std::to_string(ranks_);
  if (n <= first * ranks_)
    out += round_robin + ": too few to hand out on request";
  else
    out += std::to_string(first) + " each to start with, " + round_robin + ", the other " +
           std::to_string(n - first * ranks_) + " handed out as ranks ask for more";
  if (at > 0) out += ", each rank building the joins' right sides itself";
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
