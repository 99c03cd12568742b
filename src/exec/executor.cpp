// A query's life: plan, admit, start pools, run pipelines, tear down, report.
#include "exec/executor.h"

#include <chrono>
#include <cmath>
#include <optional>

#include "exec/physical_planner.h"
#include "exec/pipeline_runner.h"
#include "exec/pool_set.h"
#include "exec/progress_bar.h"
#include "exec/sinks/collect_sink.h"
#include "exec/sinks/file_sink.h"
#include "io/output/output_dir.h"
#include "io/output/staged_output.h"
#include "plan/optimizer.h"
#include "resources/resource_pool.h"

namespace ember {

namespace {

std::vector<PoolRequest> pool_requests(const PhysicalPlan& plan) {
  std::vector<PoolRequest> out;
  for (const auto& spec : plan.pools)
    out.push_back(
        {spec->name, spec->concurrency, spec->num_cpus, spec->num_gpus, spec->memory_bytes});
  return out;
}

/// The sink of the query's last pipeline: where its rows go.
std::unique_ptr<OutputSink> make_output_sink(const QueryOutput& out, const Schema& schema) {
  if (out.kind == QueryOutput::Kind::Csv)
    return std::make_unique<FileSink>(out.dir, schema, FileFormat::Csv);
  if (out.kind == QueryOutput::Kind::Jsonl)
    return std::make_unique<FileSink>(out.dir, schema, FileFormat::Jsonl);
  if (out.kind == QueryOutput::Kind::Parquet)
    return std::make_unique<FileSink>(out.dir, schema, FileFormat::Parquet, out.parquet);
  if (out.kind == QueryOutput::Kind::Arrow)
    return std::make_unique<FileSink>(out.dir, schema, FileFormat::Arrow);
  return std::make_unique<CollectSink>(schema);
}

/// Runs the pipelines in order on this (the driver) thread; each breaker's output becomes the
/// next pipeline's source, and the last one's output sink yields the query's table.
Table run_pipelines(QueryContext& query, const PhysicalPlan& plan, const OutputSink& output,
                    int threads) {
  std::shared_ptr<const Source> carried;
  Table result(plan.schema, {});
  for (const Pipeline& p : plan.pipelines) {
    const Source& source = p.source ? *p.source : *carried;
    const Sink* sink = &output;
    if (p.breaker) sink = p.breaker.get();
    if (!p.breaker) query.rows_out = 0;  // count the query's output only
    std::unique_ptr<GlobalSinkState> state = sink->global_state(source.num_partitions());
    run_pipeline(query, p, source, *sink, *state, threads);
    if (std::exception_ptr e = query.error()) std::rethrow_exception(e);
    if (p.breaker)
      carried = p.breaker->finalize(*state);
    else
      result = output.finalize(*state);
  }
  return result;
}

/// Checks a file-writing query's output before any work runs, and stages it: the files go to a
/// hidden directory beside the target that replaces it only when the whole query succeeds.
/// None for a query that collects.
std::optional<StagedOutput> open_output(const QueryOutput& out) {
  if (out.kind == QueryOutput::Kind::Collect) return std::nullopt;
  return StagedOutput::open(out.dir);
}

QueryStats collect_stats(PoolSet& pools, const ResourceLease& lease, QueryContext& query) {
  QueryStats stats;
  for (size_t i = 0; i < pools.pools().size(); ++i) {
    UdfStats s = pools.pools()[i]->stats();
    s.failed_rows = query.rejected().at(i)->count();
    const PoolGrant& g = lease.pools().at(i);
    s.held_cpus = g.held_cpus;
    s.held_gpus = g.held_gpus;
    s.held_memory_bytes = g.held_memory;
    stats.udfs.push_back(std::move(s));
  }
  return stats;
}

}  // namespace

int pipeline_threads(const RunOptions& options, double cpus_left) {
  if (options.threads > 0) return options.threads;
  return std::max(1, static_cast<int>(std::floor(cpus_left + 1e-9)));
}

QueryResult execute_plan(const NodePtr& plan, const RunOptions& options, const QueryOutput& out) {
  auto start = std::chrono::steady_clock::now();
  NodePtr optimized = optimize(plan);
  PhysicalPlan physical = plan_physical(*optimized);
  // A write that would replace its own input is refused before anything runs.
  if (out.kind != QueryOutput::Kind::Collect)
    check_not_read_by_query(resolve_output_dir(out.dir), source_files(*plan));

  // Admission first: nothing is constructed for a query that cannot fit.
  std::shared_ptr<ResourcePool> resources = ResourcePool::for_run(options.resources);
  ResourceLease lease = resources->admit(pool_requests(physical));
  // Declared before the pools, so that on failure the actors are gone before it aborts.
  std::optional<StagedOutput> output = open_output(out);
  QueryOutput writing = out;
  if (output) writing.dir = output->dir();

  PoolSet pools(physical.pools, lease);
  pools.start();
  QueryContext query(pools.pools());
  QueryResult result;
  {
    ProgressBar progress(query, options.progress);
    std::unique_ptr<OutputSink> sink = make_output_sink(writing, physical.schema);
    result.table =
        run_pipelines(query, physical, *sink, pipeline_threads(options, lease.cpus_left()));
  }
  // Teardown on this, the driver thread: joins the actor threads (their UDFs' destructors run
  // there) and waits for worker processes. On an error, ~PoolSet does the same.
  pools.stop();
  if (output) output->commit();  // the whole query succeeded: the new set replaces the old
  result.stats = collect_stats(pools, lease, query);
  result.rejected = rejected_table(query.rejected());
  result.stats.rows_out =
      out.kind == QueryOutput::Kind::Collect ? result.table.num_rows() : query.rows_out.load();
  result.stats.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace ember
