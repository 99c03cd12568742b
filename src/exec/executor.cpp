// A query's life: plan, admit, start pools, run pipelines, tear down, report.
#include "exec/executor.h"

#include <chrono>
#include <cmath>
#include <optional>

#include "ember/error.h"
#include "exec/aggregate_sink.h"
#include "exec/collect_sink.h"
#include "exec/file_sink.h"
#include "exec/pipeline_runner.h"
#include "exec/pool_set.h"
#include "exec/progress_bar.h"
#include "exec/table_source.h"
#include "io/output/output_dir.h"
#include "io/output/staged_output.h"
#include "plan/optimizer.h"
#include "resources/resource_pool.h"

namespace ember {

namespace {

std::vector<PoolRequest> pool_requests(const PhysicalPlan& plan) {
  std::vector<PoolRequest> out;
  for (const auto& spec : plan.pools)
    out.push_back({spec->name, spec->concurrency, spec->num_cpus, spec->num_gpus,
                   spec->memory_bytes});
  return out;
}

std::vector<Batch> flatten(std::vector<std::vector<Batch>> partitions) {
  std::vector<Batch> all;
  for (auto& part : partitions)
    for (auto& b : part) all.push_back(std::move(b));
  return all;
}

std::unique_ptr<Sink> make_output_sink(const QueryOutput& out, const Schema& schema, int parts) {
  if (out.kind == QueryOutput::Kind::Csv)
    return std::make_unique<FileSink>(out.dir, schema, FileFormat::Csv);
  if (out.kind == QueryOutput::Kind::Jsonl)
    return std::make_unique<FileSink>(out.dir, schema, FileFormat::Jsonl);
  return std::make_unique<CollectSink>(parts);
}

std::unique_ptr<Sink> make_sink(const Pipeline& p, const QueryOutput& out, int parts) {
  switch (p.end) {
    case PipelineEnd::Output:
      return make_output_sink(out, p.schema, parts);
    case PipelineEnd::Limit:
      return std::make_unique<CollectSink>(parts, p.limit);
    case PipelineEnd::Repartition:
      return std::make_unique<CollectSink>(parts);
    case PipelineEnd::Aggregate:
      return std::make_unique<AggregateSink>(p.aggregates, p.schema, p.aggregate_schema, parts);
  }
  throw Error("internal: unknown pipeline end");
}

/// A query that writes files commits only a complete set: every partition's part must exist.
void check_every_part_written(const Sink& sink, const Source& source) {
  const auto* files = dynamic_cast<const FileSink*>(&sink);
  if (files == nullptr || files->parts_written() == source.num_partitions()) return;
  // Broken invariant: the pipeline ended without an error but some partition never finished.
  throw Error("internal: only " + std::to_string(files->parts_written()) + " of " +
              std::to_string(source.num_partitions()) +
              " output files were written; the output directory is left as it was");
}

/// The source that carries a breaker's output into the next pipeline.
std::shared_ptr<const Source> carry(const Pipeline& p, Sink& sink) {
  if (p.end == PipelineEnd::Aggregate)
    return std::make_shared<TableSource>(static_cast<AggregateSink&>(sink).result(), 1,
                                         "Aggregate");
  auto& collected = static_cast<CollectSink&>(sink);
  if (p.end == PipelineEnd::Limit)
    return std::make_shared<TableSource>(p.schema, collected.take_partitions(),
                                         "Limit " + std::to_string(p.limit));
  return std::make_shared<TableSource>(Table(p.schema, flatten(collected.take_partitions())),
                                       p.num_partitions, "Repartition");
}

/// Runs the pipelines in order; each breaker's output becomes the next pipeline's source.
Table run_pipelines(QueryContext& query, const PhysicalPlan& plan, const QueryOutput& out,
                    int threads) {
  std::shared_ptr<const Source> carried;
  Table result(plan.schema, {});
  for (const Pipeline& p : plan.pipelines) {
    const Source& source = p.source ? *p.source : *carried;
    if (p.end == PipelineEnd::Output) query.rows_out = 0;  // count the query's output only
    std::unique_ptr<Sink> sink = make_sink(p, out, source.num_partitions());
    run_pipeline(query, p, source, *sink, threads);
    if (std::exception_ptr e = query.error()) std::rethrow_exception(e);
    if (p.end == PipelineEnd::Output) check_every_part_written(*sink, source);
    if (p.end != PipelineEnd::Output) {
      carried = carry(p, *sink);
    } else if (auto* collected = dynamic_cast<CollectSink*>(sink.get())) {
      result = Table(plan.schema, flatten(collected->take_partitions()));
    }
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

QueryStats collect_stats(PoolSet& pools, const ResourceLease& lease) {
  QueryStats stats;
  for (size_t i = 0; i < pools.pools().size(); ++i) {
    UdfStats s = pools.pools()[i]->stats();
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
    result.table =
        run_pipelines(query, physical, writing, pipeline_threads(options, lease.cpus_left()));
  }
  pools.stop();
  if (output) output->commit();  // the whole query succeeded: the new set replaces the old
  result.stats = collect_stats(pools, lease);
  result.stats.rows_out =
      out.kind == QueryOutput::Kind::Collect ? result.table.num_rows() : query.rows_out.load();
  result.stats.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace ember
