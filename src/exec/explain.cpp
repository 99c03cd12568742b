// DataFrame::explain(): plans, actor pools and the resource budget.
#include "exec/explain.h"

#include <sstream>

#include "exec/actor_placement.h"
#include "exec/executor.h"
#include "exec/partition_spreading.h"
#include "exec/physical_planner.h"
#include "exec/range_write.h"
#include "exec/resumable_write.h"
#include "exec/session_access.h"
#include "plan/optimizer.h"
#include "resources/machine_resources.h"
#include "resources/resource_pool.h"
#include "resources/resource_units.h"
#include "udf/udf_spec_codec.h"

namespace ember {

namespace {

/// Each pipeline of the plan, one a line, as its steps run; under the MPI runner, where it
/// runs and where its rows go.
std::string describe_pipelines(const LogicalNode& optimized, const PhysicalPlan& physical,
                               ClusterRuntime* runtime) {
  std::ostringstream out;
  const bool cluster = runtime && runtime->ranks() > 1;
  const PartitionSpreader::Spread spread =
      cluster ? runtime->spreader().spread_ranks(optimized, physical) : PartitionSpreader::Spread{};
  const bool by_range = spread.ranks > 1 && spread.partials && spread.tail &&
                        writes_by_range(physical, spread.pipeline);
  for (size_t k = 0; k < physical.pipelines.size(); ++k) {
    const Pipeline& p = physical.pipelines[k];
    out << "  " << k + 1 << ". ";
    if (!p.source) out << "what pipeline " << k << " gathered";
    for (size_t i = 0; i < p.steps.size(); ++i) out << (i || !p.source ? " -> " : "") << p.steps[i];
    if (!p.breaker) out << " -> output";
    if (cluster) {
      if (k == spread.pipeline && spread.ranks > 1)
        out << "\n     spread: on " << spread.ranks << " ranks"
            << (spread.partials && p.breaker && p.breaker->exchanges_partials()
                    ? std::string(", into the breaker on each rank, groups exchanged by key: "
                                  "each rank merges its share, rank 0 merges the shares") +
                          (by_range ? " (collect) or they are cut into one key range per rank "
                                      "(write_*)"
                                    : "")
                : spread.partials ? ", into the breaker on each rank, " +
                                        p.breaker->partials_summary() + " sent to rank 0" +
                                        (by_range ? " (collect) or kept there and cut into one "
                                                    "key range per rank (write_*)"
                                                  : "")
                : p.breaker
                    ? ", its rows sent to rank 0 for the breaker"
                    : ", its rows sent to rank 0 (collect) or written on each rank (write_*)");
      else if (by_range && k == spread.pipeline + 1)
        out << "\n     on rank 0 (collect), or on every rank, rank r writing key range r as part "
               "r (write_*)";
      else if (k < spread.pipeline && spread.ranks > 1)
        out << "\n     on every rank that runs pipeline " << spread.pipeline + 1
            << ", each building this right side itself";
      else
        out << "\n     on rank 0";
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace

std::string explain_plan(const NodePtr& plan, const RunOptions& options, ClusterRuntime* cluster) {
  NodePtr optimized = optimize(plan);
  PhysicalPlan physical = plan_physical(*optimized, shuffle_choice(*optimized, options, cluster));
  std::ostringstream out;
  out << "== Logical plan ==\n" << to_string(*plan);
  out << "== Optimized plan ==\n" << to_string(*optimized);
  out << "== Actor pools ==\n";
  double cpus = 0, gpus = 0;
  ByteTotal memory = 0;  // exact: concurrency x memory_bytes may pass what int64 holds
  if (physical.pools.empty()) out << "  (none)\n";
  for (const auto& spec : physical.pools) {
    out << "  " << describe_udf_spec(*spec) << "\n";
    cpus += spec->concurrency * spec->num_cpus;
    gpus += spec->concurrency * spec->num_gpus;
    memory += total_bytes(spec->concurrency, spec->memory_bytes);
  }
  auto pool = ResourcePool::for_run(options.resources);
  const Resources& total = pool->total();
  double left = std::max(0.0, total.cpus - cpus);
  int threads = pipeline_threads(options, left);
  out << "== Resources ==\n  " << pool->describe() << "\n";
  if (!options.resources) out << "  GPUs: " << describe_gpu_source() << "\n";
  out << "  pools ask for: " << format_amount(cpus) << " CPUs, " << format_amount(gpus) << " GPUs, "
      << format_bytes(memory) << "\n";
  out << "  left for ordinary work: " << format_amount(left) << " CPUs -> " << threads
      << " pipeline thread" << (threads == 1 ? "" : "s") << "\n";
  if (options.session)
    out << "== Session (warm actors) ==\n"
        << detail::SessionAccess::pools(*options.session)->describe();
  // Under the MPI runner: every rank, and the rank(s) each pool's actors would go to.
  if (cluster && cluster->ranks() > 1)
    out << "== Cluster placement ==\n"
        << cluster->placer().explain(physical.pools, options.resources);
  out << "== Pipelines ==\n" << describe_pipelines(*optimized, physical, cluster);
  if (options.resumable) out << "== Resumable write ==\n" << explain_resumable(physical, options);
  // Where the first pipeline's partitions run under the MPI runner.
  if (cluster)
    out << "== Cluster partitions ==\n  " << cluster->spreader().explain(*optimized, physical)
        << "\n";
  return out.str();
}

}  // namespace ember
