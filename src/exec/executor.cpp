// A query's life: plan, admit, start pools, run pipelines, tear down, report.
#include "exec/executor.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <optional>
#include <thread>

#include "ember/error.h"
#include "exec/cancel_watch.h"
#include "exec/operators/actor_pool_operator.h"
#include "exec/partition_spreading.h"
#include "exec/physical_planner.h"
#include "exec/pipeline_runner.h"
#include "exec/pool_admission.h"
#include "exec/pool_growth.h"
#include "exec/pool_set.h"
#include "exec/progress_bar.h"
#include "exec/range_write.h"
#include "exec/resumable_write.h"
#include "exec/saved_breaker_result.h"
#include "exec/sinks/collect_sink.h"
#include "exec/sinks/file_sink.h"
#include "io/output/object_store_output.h"
#include "io/output/output_dir.h"
#include "io/output/staged_output.h"
#include "io/storage/storage_url.h"
#include "plan/optimizer.h"

namespace ember {

namespace {

/// The sink of the query's last pipeline: where its rows go.
/// With `pieces` (a resumable write), the file sink journals what it writes.
std::unique_ptr<OutputSink> make_output_sink(const QueryOutput& out, const Schema& schema,
                                             std::optional<PieceJournal> pieces) {
  if (out.kind == QueryOutput::Kind::Csv)
    return std::make_unique<FileSink>(out.dir, schema, FileFormat::Csv, FileWriteOptions{}, pieces);
  if (out.kind == QueryOutput::Kind::Jsonl)
    return std::make_unique<FileSink>(out.dir, schema, FileFormat::Jsonl, FileWriteOptions{},
                                      pieces);
  if (out.kind == QueryOutput::Kind::Parquet)
    return std::make_unique<FileSink>(out.dir, schema, FileFormat::Parquet,
                                      FileWriteOptions{out.parquet, {}}, pieces);
  if (out.kind == QueryOutput::Kind::Arrow)
    return std::make_unique<FileSink>(
        out.dir, schema, out.arrow.stream ? FileFormat::ArrowStream : FileFormat::Arrow,
        FileWriteOptions{{}, out.arrow}, pieces);
  return std::make_unique<CollectSink>(schema);
}

/// Per pool: the last pipeline that feeds it (-1: none). Once that pipeline has ended, the
/// pool's input is exhausted and every batch it was handed has returned.
std::vector<int> last_pipeline_of_pools(const PhysicalPlan& plan) {
  std::vector<int> last(plan.pools.size(), -1);
  for (size_t k = 0; k < plan.pipelines.size(); ++k)
    for (const auto& stage : plan.pipelines[k].stages)
      if (const auto* op = dynamic_cast<const ActorPoolOperator*>(stage.get()))
        last.at(static_cast<size_t>(op->pool())) = static_cast<int>(k);
  return last;
}

/// Other ranks write their own part files when the spread pipeline is the last and the query
/// writes files, or each a key range of the groups when the last pipeline follows an
/// exchanged group-by (`by_range`: the write allows it); else the rows are rank 0's to write.
SpreadOutput spread_output(const QueryOutput& out, const PhysicalPlan& plan, size_t spread_at,
                           bool by_range) {
  SpreadOutput files;
  if (out.kind == QueryOutput::Kind::Collect) return files;
  if (spread_at + 1 == plan.pipelines.size())
    files.files = true;
  else if (by_range && writes_by_range(plan, spread_at))
    files.ranges = true;
  else
    return files;
  files.dir = out.dir;
  switch (out.kind) {
    case QueryOutput::Kind::Csv:
      files.format = FileFormat::Csv;
      break;
    case QueryOutput::Kind::Jsonl:
      files.format = FileFormat::Jsonl;
      break;
    case QueryOutput::Kind::Parquet:
      files.format = FileFormat::Parquet;
      files.parquet = out.parquet;
      break;
    case QueryOutput::Kind::Arrow:
      files.format = out.arrow.stream ? FileFormat::ArrowStream : FileFormat::Arrow;
      files.arrow = out.arrow;
      break;
    case QueryOutput::Kind::Collect:
      break;
  }
  return files;
}

/// A resumable write under the cluster runner: the partitions earlier runs finished are handed
/// to no rank, and each part another rank commits is journaled here, on rank 0, once its end
/// arrives (the rank fsynced it before). With checkpoints, the ranks resume the unfinished
/// partitions they are handed after their last checkpoint, and each piece they commit is
/// journaled here as it arrives.
void resume_spread(SpreadOutput& where, ResumableWrite& resume, const OutputSink& sink) {
  for (const auto& [partition, part] : resume.journal.recovered()) {
    if (partition >= resume.kept_below) continue;  // a join's spilled range: never kept
    if (part.finished)
      where.finished.push_back(partition);
    else if (resume.checkpoint_rows > 0)
      where.unfinished.emplace(partition, part);
  }
  const auto* files = &dynamic_cast<const FileSink&>(sink);
  where.part_written = [files](int partition, int64_t rows) {
    files->journal_adopted(partition, rows);
  };
  where.checkpoint_rows = resume.checkpoint_rows;
  where.piece_written = [journal = &resume.journal](const JournalPiece& p) { journal->append(p); };
}

/// Counts each partition another rank wrote itself as the file sink's, once its end arrives
/// (receive() sees no rows then, only each partition's end or error).
class AdoptingSink final : public Sink {
 public:
  explicit AdoptingSink(const FileSink& files) : files_(files) {}
  std::unique_ptr<GlobalSinkState> global_state(int n) const override {
    return files_.global_state(n);
  }
  std::unique_ptr<LocalSinkState> local_state(GlobalSinkState&, int) const override {
    return std::make_unique<LocalSinkState>();
  }
  void sink(GlobalSinkState&, LocalSinkState&, const Batch&) const override {
    throw Error("internal: rows arrived from a rank that writes its own files");
  }
  void combine(GlobalSinkState& global, LocalSinkState&) const override {
    files_.adopt_part(global);
  }

 private:
  const FileSink& files_;
};

/// The first pipeline under the cluster runner: this rank runs the partitions it takes from the
/// spread's queue (SpreadRun::local_supply) through the pipeline while a second thread feeds
/// the rows the other ranks computed for theirs into the same sink state as they arrive
/// (SpreadRun::receive), so the sink sees every partition as if all had run here and rank 0
/// holds only what it has not taken yet. The query's counters (and so the progress bar) count
/// every rank's partitions and rows as the ranks report them; the total is every partition of
/// the source, counted once here, whichever rank runs it.
/// `own_range` (a write spread by key range): rank 0's write of its range, once its own
/// partitions have ended, while the receiver takes the other ranks' messages.
void run_spread_pipeline(QueryContext& query, const Pipeline& p, SpreadRun& spread,
                         const Sink& sink, GlobalSinkState& state, int threads,
                         std::vector<RankStats>* stats, std::vector<UdfStats>* udfs,
                         const std::function<void()>& own_range) {
  query.partitions_total += p.source->num_partitions();
  // What earlier runs finished ends here at once, as a local run's would: nothing is read.
  for (int kept : spread.kept()) {
    std::unique_ptr<LocalSinkState> local = sink.local_state(state, kept);
    sink.combine(state, *local);
    query.partitions_done.fetch_add(1, std::memory_order_relaxed);
  }
  std::optional<AdoptingSink> adopting;
  if (spread.writes_files()) adopting.emplace(dynamic_cast<const FileSink&>(sink));
  const Sink& received_sink = adopting ? static_cast<const Sink&>(*adopting) : sink;
  std::thread receiver([&] {
    try {
      spread.receive(received_sink, state);
    } catch (...) {
      query.fail(std::current_exception());
    }
  });
  try {
    // With an exchange, this rank's partitions split their states into the ranks' shares.
    run_pipeline(query, p, *p.source, spread.own_sink(sink), state, threads, spread.local_supply());
    // What this rank's join builds spilled, joined with what its own partitions spilled (other
    // ranks build their joins in memory and spill nothing).
    if (!query.cancelled()) run_tails(query, p, *p.source, sink, state, threads);
    spread.own_partitions_ended();
    if (own_range) own_range();
  } catch (...) {
    query.fail(std::current_exception());
  }
  // Failed or satisfied here: the other ranks end their partitions, which ends the receiver.
  if (query.cancelled() || sink.satisfied(state)) spread.cancel();
  receiver.join();
  if (query.cancelled() || sink.satisfied(state)) spread.cancel();
  *stats = spread.finish();
  *udfs = spread.udf_figures();
}

/// What the last pipeline reads instead of the result of the breaker before it (saved first).
using SaveWriteInput = std::function<std::shared_ptr<const Source>(std::shared_ptr<const Source>)>;

/// Runs the pipelines in order on this (the driver) thread; each breaker's output becomes the
/// next pipeline's source, and the last one's output sink yields the query's table. After
/// pipeline k, `ended(k)` runs (on this thread); the last pipeline reads what
/// `save_write_input`, if set, makes of its input.
Table run_pipelines(QueryContext& query, const PhysicalPlan& plan, const OutputSink& output,
                    int threads, int64_t memory_budget, const std::function<void(size_t)>& ended,
                    const SaveWriteInput& save_write_input, SpreadRun* spread, size_t spread_at,
                    std::vector<RankStats>* spread_stats, std::vector<UdfStats>* spread_udfs) {
  std::shared_ptr<const Source> carried;
  Table result(plan.schema, {});
  for (const Pipeline& p : plan.pipelines) {
    const auto k = static_cast<size_t>(&p - plan.pipelines.data());
    // A join run as a hash exchange: its sides were exchanged before the spread began.
    if (spread != nullptr && plan.shuffle && (k == plan.shuffle->left || k == plan.shuffle->right))
      continue;
    const Source& source = p.source ? *p.source : *carried;
    const Sink* sink = &output;
    if (p.breaker) sink = p.breaker.get();
    if (!p.breaker) query.rows_out = 0;  // count the query's output only
    std::unique_ptr<GlobalSinkState> state = sink->global_state(pipeline_partitions(p, source));
    // Before a spread pipeline come its joins' right sides, which every rank builds in memory
    // (small, docs/cluster.md): rank 0 too, so that every rank numbers their rows alike.
    const bool right_side = spread != nullptr && &p < &plan.pipelines[spread_at];
    state->memory_budget_bytes = right_side ? 0 : memory_budget;
    // A write spread by key range: the last pipeline runs on every rank, this one's range
    // while the other ranks write theirs (write_own_range), into this state.
    const bool ranged =
        spread != nullptr && &p == &plan.pipelines[spread_at] && spread->writes_ranges();
    std::unique_ptr<GlobalSinkState> output_state;
    if (ranged) output_state = output.global_state(spread->ranks());
    if (spread != nullptr && &p == &plan.pipelines[spread_at])
      run_spread_pipeline(query, p, *spread, *sink, *state, threads, spread_stats, spread_udfs,
                          ranged ? std::function<void()>([&] {
                            write_own_range(query, plan, spread_at, *state, *spread, output,
                                            *output_state, threads);
                          })
                                 : nullptr);
    else
      run_pipeline_and_tails(query, p, source, *sink, *state, threads);
    if (std::exception_ptr e = query.error()) std::rethrow_exception(e);
    ended(static_cast<size_t>(&p - plan.pipelines.data()));
    if (ranged) {  // every other rank's part was written and committed where it ran
      const auto& files = dynamic_cast<const FileSink&>(output);
      for (int r = 1; r < spread->ranks(); ++r) files.adopt_part(*output_state);
      result = output.finalize(*output_state);
      query.bytes_written.fetch_add(output.bytes_written(*output_state), std::memory_order_relaxed);
      ended(plan.pipelines.size() - 1);
      break;
    }
    if (p.breaker) {
      const bool exchanged =
          spread != nullptr && &p == &plan.pipelines[spread_at] && spread->exchanges();
      carried = exchanged ? p.breaker->finalize_shares(*state, spread->take_shares())
                          : p.breaker->finalize(*state);
      if (save_write_input && &p + 1 == &plan.pipelines.back())
        carried = save_write_input(std::move(carried));
    } else {
      result = output.finalize(*state);
      query.bytes_written.fetch_add(output.bytes_written(*state), std::memory_order_relaxed);
    }
  }
  return result;
}

QueryStats collect_stats(PoolSet& pools, const Placement& placement, QueryContext& query,
                         const std::vector<RankStats>& spread,
                         const std::vector<UdfStats>& spread_udfs) {
  QueryStats stats;
  stats.ranks.resize(static_cast<size_t>(placement.ranks));
  for (int r = 0; r < placement.ranks; ++r) stats.ranks[static_cast<size_t>(r)].rank = r;
  // The pipelines run on this rank (rank 0), but for the partitions other ranks ran.
  stats.ranks[0].partitions = query.partitions_done.load();
  stats.ranks[0].rows = query.rows_read.load();
  stats.ranks[0].bytes_read = query.bytes_read.load();
  stats.ranks[0].bytes_written = query.bytes_written.load();
  // Under the cluster runner the first pipeline's partitions ran on several ranks.
  for (size_t r = 0; r < spread.size() && r < stats.ranks.size(); ++r) {
    stats.ranks[r].rows_shuffled_out = spread[r].rows_shuffled_out;
    stats.ranks[r].rows_shuffled_in = spread[r].rows_shuffled_in;
    stats.ranks[r].udf_batches_elsewhere = spread[r].udf_batches_elsewhere;
  }
  for (size_t r = 1; r < spread.size() && r < stats.ranks.size(); ++r) {
    stats.ranks[r].partitions = spread[r].partitions;
    stats.ranks[r].rows = spread[r].rows;
    stats.ranks[0].partitions -= spread[r].partitions;
    stats.ranks[0].rows -= spread[r].rows;
    stats.ranks[r].busy_seconds += spread[r].busy_seconds;
    stats.ranks[r].peak_results_in_flight = spread[r].peak_results_in_flight;
    stats.ranks[r].bytes_read = spread[r].bytes_read;
    stats.ranks[r].bytes_written = spread[r].bytes_written;
  }
  for (size_t i = 0; i < pools.pools().size(); ++i) {
    UdfStats s = pools.stats(i);
    if (i < spread_udfs.size()) {  // other ranks' calls to their own actors
      const UdfStats& elsewhere = spread_udfs[i];
      s.batches += elsewhere.batches;
      s.rows += elsewhere.rows;
      s.busy_seconds += elsewhere.busy_seconds;
      s.retries += elsewhere.retries;
      s.timeouts += elsewhere.timeouts;
    }
    s.failed_rows = query.rejected().at(i)->count();
    const PoolGrant& g = placement.grants.at(i);
    s.held_cpus = g.held_cpus;
    s.held_gpus = g.held_gpus;
    s.held_memory_bytes = g.held_memory;
    s.actors_per_rank.assign(static_cast<size_t>(placement.ranks), 0);
    s.inits_per_rank.assign(static_cast<size_t>(placement.ranks), 0);
    const auto figures = pools.figures(i);
    for (size_t a = 0; a < figures.size(); ++a) {
      // An autoscaling pool's added actors (past the placed ones) live on this rank.
      const auto& placed = placement.pools.at(i);
      const auto rank = a < placed.size() ? static_cast<size_t>(placed[a].rank) : 0;
      if (a < placed.size()) ++s.actors_per_rank[rank];
      s.inits_per_rank[rank] += figures[a].inits;
      stats.ranks[rank].busy_seconds += figures[a].busy_seconds;
      if (rank != 0 && spread.empty()) stats.ranks[rank].rows += figures[a].rows;
    }
    stats.udfs.push_back(std::move(s));
  }
  return stats;
}

/// `more` (one spread's figures per rank) added into `into`.
void add_rank_stats(std::vector<RankStats>& into, const std::vector<RankStats>& more) {
  if (into.size() < more.size()) into.resize(more.size());
  for (size_t r = 0; r < more.size(); ++r) {
    RankStats& a = into[r];
    const RankStats& b = more[r];
    a.rank = b.rank;
    a.partitions += b.partitions;
    a.rows += b.rows;
    a.busy_seconds += b.busy_seconds;
    a.peak_results_in_flight = std::max(a.peak_results_in_flight, b.peak_results_in_flight);
    a.bytes_read += b.bytes_read;
    a.bytes_written += b.bytes_written;
    a.rows_shuffled_out += b.rows_shuffled_out;
    a.rows_shuffled_in += b.rows_shuffled_in;
    a.udf_batches_elsewhere += b.udf_batches_elsewhere;
  }
}

/// `more` (one spread's figures per pool) added into `into`.
void add_udf_stats(std::vector<UdfStats>& into, const std::vector<UdfStats>& more) {
  if (into.size() < more.size()) into.resize(more.size());
  for (size_t i = 0; i < more.size(); ++i) {
    into[i].batches += more[i].batches;
    into[i].rows += more[i].rows;
    into[i].busy_seconds += more[i].busy_seconds;
    into[i].retries += more[i].retries;
    into[i].timeouts += more[i].timeouts;
  }
}

/// One side of a join run as a hash exchange (pipeline `k`, ending in its ShuffleSink), spread
/// over the ranks: every rank, this one too, keeps its buckets of the side. Its figures are
/// added to `stats` and `udfs`; `exchanges` gets its id (for the ranks to forget it).
void exchange_join_side(QueryContext& query, const PhysicalPlan& plan, size_t k, bool left,
                        const LogicalNode& join, PartitionSpreader& spreader,
                        const SpreadOutput& output, int threads, std::vector<RankStats>& stats,
                        std::vector<UdfStats>& udfs, std::vector<uint64_t>& exchanges) {
  const Pipeline& p = plan.pipelines.at(k);
  uint64_t id = 0;
  std::unique_ptr<SpreadRun> spread =
      spreader.spread_join_side(join, left, plan, k, query, output, &id);
  if (!spread) throw Error("internal: a join side's exchange did not start");
  exchanges.push_back(id);
  auto state = p.breaker->global_state(pipeline_partitions(p, *p.source));
  state->memory_budget_bytes = output.memory_budget_bytes;
  std::vector<RankStats> side_stats;
  std::vector<UdfStats> side_udfs;
  run_spread_pipeline(query, p, *spread, *p.breaker, *state, threads, &side_stats, &side_udfs,
                      nullptr);
  if (std::exception_ptr e = query.error()) std::rethrow_exception(e);
  p.breaker->finalize_shares(*state, spread->take_shares());
  add_rank_stats(stats, side_stats);
  add_udf_stats(udfs, side_udfs);
}

/// Autoscaling pools take their added actors' shares from the query's ledger as they grow.
/// Under the MPI runner actors are placed on ranks up front: no pool grows there.
void let_pools_grow(PoolSet& pools, const Placement& placement, const RunOptions& options) {
  for (auto& pool : pools.pools()) {
    if (placement.ranks == 1)
      install_growth(*pool, ResourcePool::for_run(options.resources));
    else
      pool->set_growth({[](int) { return std::optional<ActorContext>(); }, nullptr});
  }
}

}  // namespace

ShuffleChoice shuffle_choice(const LogicalNode& optimized, const RunOptions& options,
                             ClusterRuntime* cluster) {
  ShuffleChoice choice;
  if (cluster == nullptr || cluster->ranks() < 2 || options.resumable) return choice;
  choice.join = cluster->spreader().shuffled_join(optimized);
  choice.ranks = cluster->ranks();
  choice.rank = 0;
  choice.per_rank = kJoinBucketsPerRank;
  choice.memory_budget = memory_budget(options) / choice.per_rank;
  return choice;
}

int pipeline_threads(const RunOptions& options, double cpus_left) {
  if (options.threads > 0) return options.threads;
  return std::max(1, static_cast<int>(std::floor(cpus_left + 1e-9)));
}

int64_t memory_budget(const RunOptions& options) {
  if (options.memory_budget_bytes < 0)
    throw InvalidArgument("RunOptions::memory_budget_bytes must be >= 0, got " +
                          std::to_string(options.memory_budget_bytes));
  if (options.memory_budget_bytes > 0) return options.memory_budget_bytes;
  if (const char* env = std::getenv("EMBER_MEMORY_BUDGET"); env && *env) {
    char* end = nullptr;
    const long long v = std::strtoll(env, &end, 10);
    if (*end != '\0' || v <= 0)
      throw InvalidArgument(
          std::string("EMBER_MEMORY_BUDGET must be a positive byte count, got '") + env + "'");
    return v;
  }
  const int64_t memory = options.resources && options.resources->memory_bytes > 0
                             ? options.resources->memory_bytes
                             : ResourcePool::detect().memory_bytes;
  return std::max<int64_t>(memory / 4, 64 << 20);
}

QueryResult execute_plan(const NodePtr& plan, const RunOptions& options, const QueryOutput& out,
                         ClusterRuntime* cluster) {
  auto start = std::chrono::steady_clock::now();
  check_resumable_options(options, out);
  NodePtr optimized = optimize(plan);
  const ShuffleChoice shuffle = shuffle_choice(*optimized, options, cluster);
  PhysicalPlan physical = plan_physical(*optimized, shuffle);
  // A write that would replace its own input is refused before anything runs.
  const bool remote_output = out.kind != QueryOutput::Kind::Collect && is_remote_path(out.dir);
  if (remote_output) {
    check_object_store_not_read(out.dir, source_files(*plan));
  } else if (out.kind != QueryOutput::Kind::Collect) {
    check_not_read_by_query(resolve_output_dir(out.dir), source_files(*plan));
  }

  // A resumable write opens its journal first: a rerun that finds the breaker result saved
  // runs the write pipeline alone, so only that pipeline's pools are admitted and started.
  std::optional<StagedOutput> output;
  std::optional<ResumableWrite> resume;   // locks the staging directory while it lives
  std::optional<PhysicalPlan> full_plan;  // set when this run loads a saved breaker result
  std::vector<size_t> kept_pools;         // then, per pool that runs: its index in full_plan
  if (options.resumable) {
    output.emplace(StagedOutput::open_resumable(out.dir));
    resume.emplace(open_resumable_write(*output, *optimized, physical, out, options));
    const std::optional<JournalBreakerResult>& saved = resume->journal.breaker_result();
    if (saved && saves_breaker_result(physical)) {
      full_plan = std::move(physical);
      physical =
          write_pipeline_only(*full_plan, load_breaker_result(output->dir(), *saved), kept_pools);
    }
  }

  // Admission first: nothing is constructed for a query that cannot fit.
  // On a cluster the placer puts each actor on a rank; locally they all stay here. In a
  // session, warm pools are borrowed rather than constructed.
  AdmittedPools admitted = admit_pools(physical.pools, options, cluster);
  Placement& placement = admitted.placement;
  if (!options.resumable) {
    try {
      if (out.kind != QueryOutput::Kind::Collect)
        output.emplace(StagedOutput::open(out.dir, out.storage));
    } catch (...) {
      return_loans(admitted);
      throw;
    }
  }
  QueryOutput writing = out;
  if (output) writing.dir = output->dir();

  PoolSet pools(physical.pools, placement, std::move(admitted.lent), admitted.session,
                admitted.loans);
  let_pools_grow(pools, placement, options);
  QueryContext query(pools.pools(), physical.downloads);
  if (resume) query.note_resumed(resume->resumed_partitions, resume->resumed_rows);
  CancelWatch cancel_watch(query, options.cancel);  // goes before the context does
  // The actors construct while the first pipeline reads and prepares its input; a constructor
  // that throws fails the query at once, whether or not a batch has reached its pool. On a
  // cluster they are all up first: other ranks call the actors they host as soon as their
  // share of the pipeline starts, and must not reach one before its construction has.
  pools.launch([&query](const std::exception_ptr& e) { query.fail(e); });
  // The context goes before the pools do: they stop telling it first.
  struct Unhook {
    PoolSet& pools;
    ~Unhook() { pools.unhook(); }
  } unhook{pools};
  if (placement.ranks > 1) pools.wait_started();
  // A pool whose last pipeline has ended gives its actors and resources back at once, for
  // other queries to use while this one goes on (a session's stays warm instead).
  const std::vector<int> last_use = last_pipeline_of_pools(physical);
  auto pipeline_ended = [&](size_t k) {
    for (size_t i = 0; i < last_use.size(); ++i)
      if (last_use[i] == static_cast<int>(k) && pools.finish(i) && !admitted.session &&
          placement.ranks == 1)
        placement.local.release_pool(i);
  };
  QueryResult result;
  std::vector<RankStats> spread_stats;
  std::vector<UdfStats> spread_udfs;
  {
    ProgressBar progress(query, options.progress, placement.ranks);
    std::unique_ptr<OutputSink> sink = make_output_sink(
        writing, physical.schema, resume ? std::optional(resume->pieces()) : std::nullopt);
    if (auto* files = dynamic_cast<FileSink*>(sink.get()); files && output)
      files->upload_parts_to(output->uploads());
    // The ranks drop a join's buckets once the spread that joins them has ended (below).
    struct ForgetExchanges {
      PartitionSpreader* spreader = nullptr;
      std::vector<uint64_t> ids;
      ~ForgetExchanges() {
        if (spreader != nullptr && !ids.empty()) spreader->forget_exchanges(ids);
      }
    } exchanges;
    // Declared after the pools and the context: on failure the other ranks have ended (and
    // sent their last UDF batch) before the pools go.
    std::unique_ptr<SpreadRun> spread;
    const size_t spread_at = leftmost_pipeline(*optimized, physical);
    // Read once (it may detect the machine's memory): the breakers here and on other ranks
    // keep to the same budget.
    const int64_t budget = memory_budget(options);
    // A rerun that loaded a saved breaker result runs the write pipeline alone, here (after a
    // breaker the rows are rank 0's to write); the other ranks host its actors only.
    if (cluster && placement.ranks > 1 && !full_plan) {
      // Not for a resumable write (its journal counts partitions, not ranges): rank 0 writes
      // those.
      SpreadOutput where = spread_output(writing, physical, spread_at, !resume);
      where.memory_budget_bytes = budget;
      // An s3:// output: each rank uploads its own parts; rank 0 completes them all.
      if (remote_output && (where.files || where.ranges)) {
        where.object_store = out.dir;
        where.storage = out.storage;
        where.part_uploaded = [uploads = output->uploads()](UploadedParts parts) {
          uploads->adopt(std::move(parts));
        };
      }
      if (resume && where.files) resume_spread(where, *resume, *sink);
      if (physical.shuffle) {
        // A join run as a hash exchange: each side's rows go to their buckets' ranks first.
        PartitionSpreader& spreader = cluster->spreader();
        exchanges.spreader = &spreader;
        SpreadOutput sides;
        sides.memory_budget_bytes = budget;
        const int threads = pipeline_threads(options, placement.cpus_left);
        exchange_join_side(query, physical, physical.shuffle->right, false, *shuffle.join, spreader,
                           sides, threads, spread_stats, spread_udfs, exchanges.ids);
        pipeline_ended(physical.shuffle->right);
        exchange_join_side(query, physical, physical.shuffle->left, true, *shuffle.join, spreader,
                           sides, threads, spread_stats, spread_udfs, exchanges.ids);
        pipeline_ended(physical.shuffle->left);
        where.shuffled_join = shuffle.join;
        where.right_exchange = exchanges.ids.at(0);
        where.left_exchange = exchanges.ids.at(1);
        where.buckets_per_rank = shuffle.per_rank;
      }
      spread = cluster->spreader().spread(*optimized, physical, query, where);
      if (physical.shuffle && !spread) throw Error("internal: a join's buckets were not spread");
    }
    // Once the breaker before the write pipeline has produced its result, a resumable write
    // saves it and the write pipeline reads it back (as a rerun would).
    SaveWriteInput save_write_input;
    if (resume && !full_plan && saves_breaker_result(physical))
      save_write_input = [&](std::shared_ptr<const Source> result) {
        const JournalBreakerResult saved = save_breaker_result(*result, output->dir());
        resume->journal.append(saved);
        return load_breaker_result(output->dir(), saved);
      };
    std::vector<RankStats> main_stats;
    std::vector<UdfStats> main_udfs;
    result.table = run_pipelines(
        query, physical, *sink, pipeline_threads(options, placement.cpus_left), budget,
        pipeline_ended, save_write_input, spread.get(), spread_at, &main_stats, &main_udfs);
    add_rank_stats(spread_stats, main_stats);
    add_udf_stats(spread_udfs, main_udfs);
  }
  pools.wait_started();  // a pool no batch reached still fails the query if it could not start
  // Figures first: a session takes its pools back at stop().
  result.stats = collect_stats(pools, placement, query, spread_stats, spread_udfs);
  if (full_plan)  // the pools upstream of the saved breaker result did not run
    result.stats.udfs =
        full_plan_udf_stats(*full_plan, std::move(result.stats.udfs), kept_pools, placement.ranks);
  result.rejected = query.rejected_table();
  // Teardown on this, the driver thread: joins the actor threads (their UDFs' destructors run
  // there) and waits for worker processes. On an error, ~PoolSet does the same.
  pools.stop();
  // The journal goes first: a kill during the commit then never leaves one that names files
  // of the set the commit moved aside.
  if (resume) {
    resume->journal.remove();
    remove_breaker_result(output->dir());  // not output: the journal that named it is gone
  }
  if (output) output->commit();  // the whole query succeeded: the new set replaces the old
  result.stats.rows_out =
      out.kind == QueryOutput::Kind::Collect ? result.table.num_rows() : query.rows_out.load();
  if (resume) {
    result.stats.resumed_partitions = resume->resumed_partitions;
    result.stats.resumed_rows = resume->resumed_rows;
    result.stats.rows_out += resume->resumed_rows;
  }
  result.stats.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace ember
