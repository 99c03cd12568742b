// Runs on a worker rank: decode the pipeline, plan it, start pools of proxies to rank 0's pools,
// and run the partitions rank 0 hands out (asking for more as they run) into a sink that
// forwards every batch to rank 0.
#include "dist/partition_worker.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stop_token>
#include <thread>

#include "core/cancelled.h"
#include "dist/batch_message.h"
#include "dist/granted_partitions.h"
#include "dist/kept_buckets.h"
#include "dist/partition_run.h"
#include "dist/piece_message.h"
#include "dist/pipeline_message.h"
#include "dist/pool_service.h"
#include "dist/range_worker.h"
#include "dist/rank_protocol.h"
#include "dist/share_exchange.h"
#include "dist/storage_message.h"
#include "exec/partition_supply.h"
#include "exec/physical_planner.h"
#include "exec/pipeline_runner.h"
#include "exec/sinks/file_sink.h"
#include "exec/sinks/shuffle_sink.h"
#include "io/output/staged_output.h"
#include "resources/resource_pool.h"

namespace ember::dist {

namespace {

struct Order {
  uint64_t query = 0;
  uint64_t done_key = 0;
  int rank = 0;                            ///< this rank
  std::vector<int> proxies;                ///< per pool: proxies to rank 0's pool
  std::vector<std::vector<uint64_t>> own;  ///< per pool: this rank's actors' keys
  std::string pipeline;
  bool files = false;  ///< write the partitions' parts into `dir` here
  /// Write this rank's key range of the breaker's rows (an exchanged group-by's groups, a
  /// sort's rows) into `dir` as part `rank` (SpreadOutput::ranges): the pipeline after the
  /// breaker came with the order.
  bool ranges = false;
  FileFormat format = FileFormat::Csv;
  ParquetWriteOptions parquet;
  ArrowWriteOptions arrow;
  std::string dir;
  int64_t memory_budget = 0;  ///< the query's (the breaker's share of it, as on rank 0)
  /// A resumable write with checkpoints: rows between them, and what earlier runs journaled of
  /// the partitions they did not finish (SpreadOutput::unfinished).
  int64_t checkpoint_rows = 0;
  std::map<int, JournalPartition> unfinished;
  /// A write to an object store (SpreadOutput::object_store): its s3:// prefix and storage.
  std::string object_store;
  StorageOptions storage;
  /// The breaker's states are exchanged: this rank merges its share of every partition's
  /// (`partitions` of them, from every rank) and sends rank 0 its share finalized.
  bool exchange = false;
  int partitions = 0;
  /// The query's pool that the chain's first UDF calls: the chain's pools are the query's from
  /// this one on (a join side's, or the pipeline after a join run as a hash exchange).
  int first_pool = 0;
};

Order read_order(const Incoming& message) {
  process::MessageReader in(message.bytes());
  Order o;
  o.query = in.get<uint64_t>();
  o.done_key = in.get<uint64_t>();
  o.rank = in.get<int32_t>();
  const auto pools = in.get<uint32_t>();
  for (uint32_t i = 0; i < pools; ++i) {
    o.proxies.push_back(in.get<int32_t>());
    std::vector<uint64_t>& keys = o.own.emplace_back(in.get<uint32_t>());
    for (uint64_t& key : keys) key = in.get<uint64_t>();
  }
  o.pipeline = std::string(in.get_string());
  o.files = in.get<uint8_t>() != 0;
  o.ranges = in.get<uint8_t>() != 0;
  o.format = static_cast<FileFormat>(in.get<uint8_t>());
  o.parquet.compression = static_cast<Compression>(in.get<uint8_t>());
  o.parquet.row_group_rows = in.get<int64_t>();
  o.arrow.compression = static_cast<Compression>(in.get<uint8_t>());
  o.dir = std::string(in.get_string());
  o.memory_budget = in.get<int64_t>();
  o.checkpoint_rows = in.get<int64_t>();
  o.unfinished = get_unfinished(in);
  o.object_store = std::string(in.get_string());
  o.storage = get_storage(in);
  o.exchange = in.get<uint8_t>() != 0;
  o.partitions = in.get<int32_t>();
  o.first_pool = in.get<int32_t>();
  return o;
}

/// Pipeline threads here: the rank's CPUs (its hosted actors mostly wait on their UDFs).
int worker_threads() {
  return std::max(1, static_cast<int>(std::floor(ResourcePool::detect().cpus + 1e-9)));
}

/// What a rank reports when its share has ended.
struct Figures {
  int64_t partitions = 0, rows = 0, rows_out = 0;
  int64_t bytes_read = 0, bytes_written = 0;
  int64_t shuffled_in = 0;        ///< rows of other ranks' shares merged here
  int64_t batches_elsewhere = 0;  ///< UDF batches that ran on other ranks' idle actors
  int64_t range_rows = 0;         ///< a write by key range: the rows of this rank's part
  int64_t range_bytes = 0;        ///< and its bytes
  std::vector<UdfStats> own;      ///< per pool: calls to this rank's own actors (else zeros)
  /// Per pool: each own actor's key and constructions as its calls from here last saw them.
  std::vector<std::vector<std::pair<uint64_t, int64_t>>> own_inits;
};

/// How often a rank tells rank 0 its counters while its share runs (its progress bar's).
constexpr auto kProgressPeriod = std::chrono::milliseconds(100);

/// Sends rank 0 the run's counters (partitions done, rows read, rows out) whenever they have
/// changed, every kProgressPeriod, until `stop`. The rank's end (Ready) carries the last ones.
void report_progress(const Order& o, Run& run, const QueryContext& context, std::stop_token stop) {
  std::mutex mu;
  std::condition_variable_any tick;
  std::unique_lock lock(mu);
  int64_t sent[3] = {0, 0, 0};
  for (;;) {
    tick.wait_for(lock, stop, kProgressPeriod, [] { return false; });
    if (stop.stop_requested()) return;
    const int64_t now[3] = {context.partitions_done.load(), context.rows_read.load(),
                            context.rows_out.load()};
    if (std::equal(now, now + 3, sent)) continue;
    std::copy(now, now + 3, sent);
    process::MessageWriter out;
    out.begin(process::Op::Progress);
    out.put(o.done_key);
    for (int64_t v : now) out.put(v);
    run.transport.send(0, kTagData, MessageBuffer(out.bytes()));
  }
}

/// Runs the order's partitions; throws what failed.
/// The query's pools on this rank: per pool its own actors when it hosts some, else proxies
/// to rank 0's pool.
std::vector<std::unique_ptr<ActorPool>> make_pools(const Order& o, Transport& transport,
                                                   const PhysicalPlan& physical) {
  std::vector<std::unique_ptr<ActorPool>> pools;
  for (size_t p = 0; p < physical.pools.size(); ++p) {
    const size_t i = p + static_cast<size_t>(o.first_pool);  // the query's numbering
    std::vector<ActorMaker> makers;
    for (uint64_t key : o.own.at(i))
      makers.push_back(
          [&transport, key](std::stop_token) { return make_own_actor_proxy(transport, key); });
    const ActorMaker to_rank_0 = [&transport, q = o.query,
                                  pool = static_cast<int>(i)](std::stop_token) {
      return make_pool_service_actor(transport, q, pool);
    };
    for (int a = 0; a < o.proxies.at(i); ++a) makers.push_back(to_rank_0);
    // A rank that hosts actors of the pool calls the pool's actors on other ranks only once
    // they are idle (rank 0 says so: Op::Lend), and only while its own are all busy: as many
    // spare proxies to rank 0's pool as there are actors elsewhere.
    std::vector<int> spares;
    const int elsewhere = physical.pools[p]->concurrency - static_cast<int>(o.own.at(i).size());
    if (!o.own.at(i).empty())
      for (int a = 0; a < elsewhere; ++a) {
        spares.push_back(static_cast<int>(makers.size()));
        makers.push_back(to_rank_0);
      }
    std::vector<ActorContext> actors(makers.size());
    for (size_t a = 0; a < actors.size(); ++a) actors[a].actor_id = static_cast<int>(a);
    auto spec = physical.pools[p];
    if (o.own.at(i).empty()) {
      // Rank 0's pool retries its calls already: a second round here would double them. It
      // holds each call to its deadline too, from when an actor takes it: a deadline here
      // would also count the wait in rank 0's queue.
      auto once = std::make_shared<UdfSpec>(*spec);
      once->max_retries = 0;
      once->timeout = std::chrono::milliseconds(0);
      spec = std::move(once);
    }
    pools.push_back(std::make_unique<ActorPool>(std::move(spec), std::move(actors), makers));
    pools.back()->set_spares(spares);
  }
  return pools;
}

/// The joins' right sides of `physical`'s pipelines before `at` (the spread one), each read
/// whole here into its hash table before any partition probes it: a right side that travels is
/// small (docs/cluster.md), and is built in memory (no spilled partitions to join later).
/// Their own counters: the query's partitions are the spread pipeline's. Returns the bytes read.
int64_t build_right_sides(const PhysicalPlan& physical, size_t at) {
  std::vector<std::unique_ptr<ActorPool>> none;
  QueryContext context(none);
  for (size_t k = 0; k < at; ++k) {
    const Pipeline& p = physical.pipelines[k];
    auto state = p.breaker->global_state(pipeline_partitions(p, *p.source));
    run_pipeline_and_tails(context, p, *p.source, *p.breaker, *state, worker_threads());
    if (std::exception_ptr e = context.error()) std::rethrow_exception(e);
    p.breaker->finalize(*state);
  }
  return context.bytes_read.load();
}

/// The sink of the partitions' part files; with checkpoints, each piece it commits goes to
/// rank 0 to be journaled there (before the partition's end, under the partition's key).
std::unique_ptr<FileSink> part_files(const Order& o, Run& run, const Schema& schema,
                                     const std::string& dir) {
  std::optional<PieceJournal> pieces;
  if (o.checkpoint_rows > 0)
    pieces = PieceJournal{&o.unfinished,
                          [&run](const JournalPiece& piece) {
                            process::MessageWriter out;
                            out.begin(process::Op::Piece);
                            out.put(run.granted.key_of(piece.partition));
                            put_piece(out, piece);
                            run.transport.send(0, kTagData, MessageBuffer(out.bytes()));
                          },
                          o.checkpoint_rows,
                          // Handed source partitions only, and joins built in memory here
                          // (build_right_sides): every piece can be kept.
                          std::numeric_limits<int>::max(), nullptr};
  return std::make_unique<FileSink>(dir, schema, o.format, FileWriteOptions{o.parquet, o.arrow},
                                    pieces);
}

/// An exchange's second half on this rank: every partition's share for it, adopted as rank 0
/// adopts another rank's partition state as it arrives (on a thread of its own, while this
/// rank's partitions run, so that shares past the memory budget go to disk instead of waiting
/// in memory), then finalized, and its rows sent to rank 0 under the rank's done key.
class ShareMerge {
 public:
  ShareMerge(const Order& o, Run& run, const PipelineBreaker& breaker, int partitions)
      : order_(o), run_(run), breaker_(breaker), share_(breaker.global_state(partitions)) {
    share_->memory_budget_bytes = o.memory_budget;
    thread_ = std::thread([this] { adopt_all(); });
  }
  /// A run that failed before finish(): its query has ended, and so does the merge.
  ~ShareMerge() {
    if (!thread_.joinable()) return;
    run_.shares.cancel();
    thread_.join();
  }
  ShareMerge(const ShareMerge&) = delete;
  ShareMerge& operator=(const ShareMerge&) = delete;

  /// Once this rank's partitions have ended: waits for the other shares, sends the finalized
  /// share to rank 0, and returns the rows that came from other ranks. Cancelled once the query
  /// ends early; the merge's error otherwise.
  int64_t finish() {
    thread_.join();
    if (error_) std::rethrow_exception(error_);
    std::shared_ptr<const Source> groups = breaker_.finalize(*share_);
    for (int p = 0; p < groups->num_partitions(); ++p) {
      std::unique_ptr<BatchReader> reader = groups->open(p, 64 * 1024);
      while (std::optional<Batch> batch = reader->next()) {
        if (run_.cancelled_now()) throw Cancelled("rank 0 ended the query");
        process::MessageWriter head;
        head.begin(process::Op::Result);
        head.put(order_.done_key);
        head.put(batch->num_rows());
        std::vector<std::string> names;
        for (int i = 0; i < batch->num_columns(); ++i)
          names.push_back(batch->schema().field(i).name);
        run_.transport.send(0, kTagData, gather_columns(head, batch->columns(), names));
      }
    }
    return rows_in_;
  }
  /// Once this rank's partitions have ended: waits for the other shares and finalizes the
  /// share here, sending nothing (a join side's exchange leaves its buckets in the breaker's
  /// JoinBuckets); returns the rows that came from other ranks. Throws as finish() does.
  int64_t settle() {
    thread_.join();
    if (error_) std::rethrow_exception(error_);
    breaker_.finalize(*share_);
    return rows_in_;
  }
  /// Once this rank's partitions have ended: waits for the other shares and returns the share
  /// finalized (in key order) as runs, sending nothing. Throws as finish() does.
  std::vector<TaggedRun> key_runs() {
    thread_.join();
    if (error_) std::rethrow_exception(error_);
    return breaker_.key_runs(*share_);
  }
  /// After key_runs(): rows of the shares that came from other ranks.
  int64_t rows_in() const { return rows_in_; }

 private:
  void adopt_all() {
    try {
      for (int got = 0; got < order_.partitions; ++got) {
        std::optional<ShareInbox::Piece> piece = run_.shares.next();
        if (!piece) throw Cancelled("rank 0 ended the query");
        std::unique_ptr<LocalSinkState> local = breaker_.local_state(*share_, piece->partition);
        breaker_.adopt_partial(*share_, *local, piece->bytes());
        breaker_.combine(*share_, *local);
        if (piece->source != run_.transport.rank()) rows_in_ += piece->rows;
      }
    } catch (...) {
      error_ = std::current_exception();
    }
  }

  const Order& order_;
  Run& run_;
  const PipelineBreaker& breaker_;
  std::unique_ptr<GlobalSinkState> share_;
  int64_t rows_in_ = 0;       // the thread's until it is joined
  std::exception_ptr error_;  // likewise
  std::thread thread_;
};

/// The end of this rank's part of the breaker, once its partitions have ended: an exchange's
/// finalized share goes to rank 0; or, for a write by key range, the rows this rank holds (its
/// share of the groups, or its partitions' sorted runs, `kept`) go to their ranges' ranks and
/// its own range into its part. A failure here fails the query through the rank's end
/// (Run::share_failed).
void end_exchange(const Order& o, Run& run, ShareMerge* merge, GlobalSinkState* kept,
                  const PhysicalPlan& physical, size_t at, Figures& figures,
                  const std::shared_ptr<JoinBuckets>& buckets) {
  try {
    if (buckets) {  // a join side's exchange: its buckets stay here for the join
      figures.shuffled_in = merge->settle();
      run.kept->keep(o.query, buckets);
    } else if (o.ranges) {
      std::vector<TaggedRun> runs =
          merge ? merge->key_runs() : physical.pipelines.at(at).breaker->key_runs(*kept);
      const RangeWritten range = write_key_range(
          run,
          RangeTarget{o.query, o.done_key, o.dir, o.format, FileWriteOptions{o.parquet, o.arrow},
                      o.object_store, o.storage},
          physical, at, std::move(runs), worker_threads());
      figures.shuffled_in = (merge ? merge->rows_in() : 0) + range.rows_in;
      figures.range_rows = range.rows;
      figures.range_bytes = range.bytes;
      run.shuffled_out += range.rows_out;
    } else {
      figures.shuffled_in = merge->finish();
    }
  } catch (const Cancelled&) {
    throw;
  } catch (...) {
    // Every partition has ended here, so no partition's end can carry it: the rank's own
    // end does, in place of its Ready, and fails the query.
    run.transport.send(0, kTagData,
                       MessageBuffer(failure_message(o.done_key, std::current_exception())));
    run.share_failed = true;
    throw;
  }
}

/// An order's chain planned here: its pipelines, the one it spreads, and, for a join side, the
/// buckets its exchange leaves on this rank.
struct PlannedOrder {
  PhysicalPlan physical;
  size_t at = 0;
  std::shared_ptr<JoinBuckets> buckets;
};

PlannedOrder plan_order(const Order& o, Run& run) {
  const ChainContext buckets_here{[&run](uint64_t id) { return run.kept->find(id); }, o.rank,
                                  o.memory_budget};
  std::optional<JoinSideExchange> side;
  NodePtr chain = decode_first_pipeline(o.pipeline, &buckets_here, &side);
  PlannedOrder planned{plan_physical(*chain), 0, nullptr};
  planned.at = leftmost_pipeline(*chain, planned.physical);
  // A join side ends in its exchange, which rank 0 planned as the side's breaker.
  if (side) {
    Pipeline& p = planned.physical.pipelines.at(planned.at);
    std::vector<int> keys;
    for (const auto& k : side->keys) keys.push_back(p.schema.index_of(k));
    planned.buckets = std::make_shared<JoinBuckets>();
    p.breaker =
        std::make_shared<ShuffleSink>(std::move(keys), p.schema, side->per_rank, planned.buckets);
  }
  return planned;
}

/// Per pool of the chain, the calls this rank made to its own actors and their constructions.
void own_udf_figures(const Order& o, const std::vector<std::unique_ptr<ActorPool>>& pools,
                     Figures& figures) {
  for (size_t i = 0; i < pools.size(); ++i) {
    const std::vector<uint64_t>& own = o.own.at(i + static_cast<size_t>(o.first_pool));
    figures.own.push_back(own.empty() ? UdfStats{} : pools[i]->stats());
    // The own actors' slots come first, in o.own's order, then the spares (see the makers
    // above), whose batches ran on other ranks' actors: counted there, not here.
    const auto slots = pools[i]->actor_figures();
    auto& inits = figures.own_inits.emplace_back();
    for (size_t a = 0; a < own.size(); ++a) inits.emplace_back(own[a], slots[a].inits);
    figures.batches_elsewhere += pools[i]->batches_lent();
    if (own.empty()) continue;
    UdfStats& u = figures.own.back();
    u.batches -= pools[i]->batches_lent();
    for (size_t a = own.size(); a < slots.size(); ++a) {
      u.rows -= slots[a].rows;
      u.busy_seconds -= slots[a].busy_seconds;
    }
  }
}

Figures run_partitions(const Order& o, Run& run, std::set<int>& ended) {
  PlannedOrder planned = plan_order(o, run);
  const PhysicalPlan& physical = planned.physical;
  const size_t at = planned.at;
  const int64_t built_bytes = build_right_sides(physical, at);
  std::vector<std::unique_ptr<ActorPool>> pools = make_pools(o, run.transport, physical);
  QueryContext context(pools, physical.downloads);
  for (auto& pool : pools) pool->start();
  {
    std::lock_guard lock(run.mu);
    run.context = &context;
    if (run.cancelled) context.fail(std::make_exception_ptr(Cancelled("rank 0 ended the query")));
  }
  run.lend_if_told();
  const Pipeline& pipeline = physical.pipelines.at(at);
  // A breaker came with the pipeline only when it aggregates: the partitions' states go back.
  const Sink* partials =
      pipeline.breaker && pipeline.breaker->ships_partials() ? pipeline.breaker.get() : nullptr;
  // A write to an object store: this rank's parts go into a local staging directory of its own,
  // and up from there (an abort, or a kill and the next write to the prefix, removes it).
  std::optional<StagedOutput> staged;
  if (o.files && !o.object_store.empty())
    staged.emplace(StagedOutput::open(o.object_store, o.storage));
  ForwardSink sink(
      run, context,
      o.files ? part_files(o, run, pipeline.schema, staged ? staged->dir() : o.dir) : nullptr,
      staged ? staged->uploads() : nullptr, partials, o.memory_budget, o.query,
      o.exchange && partials != nullptr,
      pipeline.breaker && partials == nullptr ? pipeline.breaker->rows_per_partition() : -1,
      o.ranges && !o.exchange && partials != nullptr);
  // As many as rank 0's state for the pipeline spans (a join's tails too): the same share of the
  // budget per partition.
  auto state = sink.global_state(pipeline_partitions(pipeline, *pipeline.source));
  std::optional<ShareMerge> merge;
  if (o.exchange && partials != nullptr)
    merge.emplace(o, run, *pipeline.breaker, pipeline_partitions(pipeline, *pipeline.source));
  {
    std::jthread reporter([&](std::stop_token stop) { report_progress(o, run, context, stop); });
    run_pipeline(context, pipeline, *pipeline.source, sink, *state, worker_threads(), run.granted);
  }
  {
    std::lock_guard lock(run.mu);
    run.context = nullptr;
  }
  for (auto& pool : pools) pool->stop();
  {
    auto& global = state->as<ForwardSink::Global>();
    std::lock_guard lock(global.mu);
    ended = global.ended;
  }
  if (std::exception_ptr e = context.error()) std::rethrow_exception(e);
  Figures figures;
  if (merge || (o.ranges && partials != nullptr))
    end_exchange(o, run, merge ? &*merge : nullptr, state->as<ForwardSink::Global>().partials.get(),
                 physical, at, figures, planned.buckets);
  figures.partitions = context.partitions_done.load();
  figures.rows = context.rows_read.load();
  figures.rows_out = context.rows_out.load();
  figures.bytes_read = context.bytes_read.load() + built_bytes;
  figures.bytes_written = sink.bytes_written(*state) + figures.range_bytes;
  own_udf_figures(o, pools, figures);
  return figures;
}

void serve_order(const Order& o, Run& run) {
  std::set<int> ended;
  Figures figures;
  std::exception_ptr error;
  try {
    figures = run_partitions(o, run, ended);
  } catch (...) {
    error = std::current_exception();
  }
  if (!error) error = std::make_exception_ptr(Cancelled("rank 0 ended the query"));
  // Every partition handed to this rank gets its end: one that did not end here (it failed,
  // or the query ended before it did or before it started) gets the error; then so does each
  // that came in answer to a request still on its way.
  const std::map<int, uint64_t> settled = run.granted.settle();
  for (const auto& [p, key] : settled) {
    if (ended.count(p)) continue;
    run.transport.send(0, kTagData, MessageBuffer(failure_message(key, error)));
  }
  for (const auto& [p, key] : run.granted.settle_late(settled))
    run.transport.send(0, kTagData, MessageBuffer(failure_message(key, error)));
  if (run.share_failed) return;  // its end went already
  process::MessageWriter out;
  out.begin(process::Op::Ready);
  out.put(o.done_key);
  out.put(figures.partitions);
  out.put(figures.rows);
  out.put(figures.rows_out);
  out.put(run.peak());
  out.put(figures.bytes_read);
  out.put(figures.bytes_written);
  out.put(run.shuffled_out.load());
  out.put(figures.shuffled_in);
  out.put(figures.batches_elsewhere);
  out.put(figures.range_rows);
  out.put(static_cast<uint32_t>(figures.own.size()));
  for (size_t i = 0; i < figures.own.size(); ++i) {
    const UdfStats& u = figures.own[i];
    out.put(u.batches);
    out.put(u.rows);
    out.put(u.retries);
    out.put(u.timeouts);
    out.put(u.busy_seconds);
    out.put(static_cast<uint32_t>(figures.own_inits[i].size()));
    for (const auto& [key, inits] : figures.own_inits[i]) {
      out.put(key);
      out.put(inits);
    }
  }
  run.transport.send(0, kTagData, MessageBuffer(out.bytes()));
}

}  // namespace

struct PartitionWorker::Runs {
  std::mutex mu;
  std::map<uint64_t, std::unique_ptr<Run>> by_query;  // guarded by mu
  uint64_t newest = 0;  // guarded by mu: the latest query whose order came (ids only grow)
  /// Shares that came before their query's order (another rank may start first).
  std::map<uint64_t, std::vector<Incoming>> early;  // guarded by mu
  KeptBuckets kept;  ///< join sides' buckets, until their join has run
};

PartitionWorker::PartitionWorker(Transport& transport)
    : transport_(transport), runs_(std::make_unique<Runs>()) {}

PartitionWorker::~PartitionWorker() { shutdown(); }

void PartitionWorker::handle(Incoming message) {
  process::MessageReader in(message.bytes());
  const auto op = in.header().op;
  const auto query = in.get<uint64_t>();
  std::lock_guard lock(runs_->mu);
  auto& all = runs_->by_query;
  if (op == process::Op::Stop) {
    if (auto it = all.find(query); it != all.end()) it->second->cancel();
    return;
  }
  if (op == process::Op::Taken) {
    if (auto it = all.find(query); it != all.end()) it->second->results_taken(in.get<int64_t>());
    return;
  }
  if (op == process::Op::Grant) {
    if (auto it = all.find(query); it != all.end()) it->second->granted.granted(in);
    return;
  }
  if (op == process::Op::Lend) {
    if (auto it = all.find(query); it != all.end()) it->second->lend();
    return;
  }
  if (op == process::Op::Forget) {  // `query`: a join side's exchange, whose join has run
    runs_->kept.forget(query);
    return;
  }
  const bool range = op == process::Op::Splitters || op == process::Op::Range;
  if (op == process::Op::Partial || range) {  // a share of an exchange, or a key range
    if (auto it = all.find(query); it != all.end())
      (range ? it->second->ranges : it->second->shares).take(std::move(message), in);
    else if (query > runs_->newest)  // before its order: kept until the order comes
      runs_->early[query].push_back(std::move(message));
    return;  // else after its run has gone: the query has ended
  }
  // Runs of earlier queries that have ended go now (their threads are finishing or done).
  for (auto it = all.begin(); it != all.end();) {
    bool done = false;
    {
      std::lock_guard run_lock(it->second->mu);
      done = it->second->done;
    }
    if (done) {
      it->second->thread.join();
      it = all.erase(it);
    } else {
      ++it;
    }
  }
  Order order = read_order(message);
  auto run = std::make_unique<Run>(transport_, order.done_key);
  Run* r = run.get();
  r->kept = &runs_->kept;
  runs_->newest = std::max(runs_->newest, query);
  if (auto early = runs_->early.find(query); early != runs_->early.end()) {
    for (Incoming& m : early->second) {
      process::MessageReader share(m.bytes());
      share.get<uint64_t>();
      const bool partial = share.header().op == process::Op::Partial;
      (partial ? r->shares : r->ranges).take(std::move(m), share);
    }
    runs_->early.erase(early);
  }
  r->thread = std::thread([r, order = std::move(order)] {
    serve_order(order, *r);
    std::lock_guard lock(r->mu);
    r->done = true;
  });
  all[query] = std::move(run);
}

void PartitionWorker::shutdown() {
  std::map<uint64_t, std::unique_ptr<Run>> all;
  {
    std::lock_guard lock(runs_->mu);
    all.swap(runs_->by_query);
  }
  for (auto& [query, run] : all) run->thread.join();
}

}  // namespace ember::dist
