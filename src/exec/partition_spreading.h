// Spreading a query's source partitions over the ranks of a cluster: the interface the MPI
// runner (src/dist) implements and installs on rank 0; the executor runs what stays local.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ember/query_stats.h"
#include "ember/storage_options.h"
#include "exec/actor_placement.h"
#include "exec/partition_supply.h"
#include "exec/physical_plan.h"
#include "exec/pipeline_breaker.h"
#include "exec/query_context.h"
#include "io/output/output_journal.h"
#include "io/output/partition_writer.h"
#include "io/storage/s3_multipart_upload.h"
#include "plan/logical_node.h"

namespace ember {

/// Where a spread pipeline's rows go when it is the query's last and the query writes files:
/// each rank writes its own partitions' part files into `dir`, the query's staging directory
/// (on a cluster, shared storage), which rank 0 commits once every rank has ended.
struct SpreadOutput {
  bool files = false;  ///< false: the rows come back to rank 0's sink
  /// With `files` false: the pipeline after the spread one is the query's last and writes files
  /// (`dir` and the format and options below), and the spread pipeline's breaker's rows can be
  /// cut into key ranges (PipelineBreaker::range_keys: an exchanged group-by, a sort): every
  /// rank writes one key range of them, when that pipeline can travel
  /// (SpreadRun::writes_ranges).
  bool ranges = false;
  std::string dir;
  FileFormat format = FileFormat::Csv;
  ParquetWriteOptions parquet;  ///< for FileFormat::Parquet
  ArrowWriteOptions arrow;      ///< for FileFormat::Arrow
  /// The query's memory budget: the breakers other ranks run keep to the same share of it as
  /// rank 0's, so their partial states are cut where a local run's would be.
  int64_t memory_budget_bytes = 0;
  /// A resumable write: the partitions earlier runs finished (kept in the staging directory).
  /// They are handed to no rank, rank 0 included; SpreadRun::kept() names them to the caller.
  std::vector<int> finished;
  /// With `files`, on rank 0's receiving thread: another rank has committed (fsynced and
  /// renamed into place) `partition`'s part file, of `rows` rows; called before the partition's
  /// end reaches the sink. A resumable write journals the part here.
  std::function<void(int partition, int64_t rows)> part_written;
  /// A resumable write with checkpoints inside partitions (RunOptions::checkpoint_rows > 0):
  /// each rank commits a piece every that many input rows. What earlier runs journaled of the
  /// partitions they did not finish travels to every rank, which resumes the ones it is handed
  /// after their last checkpoint; `piece_written` journals each piece another rank committed
  /// (on rank 0's receiving thread, before the partition's end; its last piece too, in place of
  /// part_written).
  int64_t checkpoint_rows = 0;
  std::map<int, JournalPartition> unfinished;
  std::function<void(const JournalPiece&)> piece_written;
  /// With `files`, a write to an object store: its s3://bucket/prefix, and the storage options
  /// to reach it. Each rank then writes its partitions' part files into a local temporary
  /// directory of its own (`dir` is rank 0's) and uploads each as a multipart upload, not
  /// completed, which it sends with the partition's end; `part_uploaded` (rank 0's receiving
  /// thread) takes it over, for rank 0 to complete at commit with its own.
  std::string object_store;
  StorageOptions storage;
  std::function<void(UploadedParts)> part_uploaded;
  /// The query's pool that the spread chain's first UDF calls (the chain's pools are the
  /// query's from this one on): a join side's, or those after a join run as a hash exchange.
  int first_pool = 0;
  /// A join run as a hash exchange of both sides whose exchanges have ended (their spreads'
  /// ids): the spread pipeline reads every rank's joined buckets.
  const LogicalNode* shuffled_join = nullptr;
  uint64_t left_exchange = 0, right_exchange = 0;
  int buckets_per_rank = 0;
};

/// The first pipeline of one query, its partitions running on several ranks. Made by
/// PartitionSpreader::spread, which has already started the other ranks' shares. The
/// partitions are handed out as the ranks ask for them: each rank starts with a few set aside
/// for it, and asks for the next ones as it has room for them, so that a fast rank runs more
/// than a slow one. A partition handed to a rank runs there or fails the query; it is never
/// run twice.
class SpreadRun {
 public:
  /// Cancels what other ranks still run for the query and waits until each has ended, so that
  /// nothing of it outlives the query's pools.
  virtual ~SpreadRun() = default;
  /// Where this rank's own run of the pipeline takes its partitions, in ascending order: the
  /// ones set aside for this rank at the start, then those not yet handed to any rank, lowest
  /// first, from the queue that the other ranks' requests are answered from (in memory, under
  /// a lock: it never says Later). The run adds nothing to the query's partitions_total: every
  /// rank's partitions are the source's, which the caller counts once.
  virtual PartitionSupply& local_supply() = 0;
  /// Feeds what other ranks computed into `sink` as it arrives: each batch of the partitions
  /// handed to them, in the partition's order, into that partition's own local state, combined
  /// at the partition's end (none once the query is cancelled or the sink satisfied, as for a
  /// local partition), and counts the other ranks' progress into the query's counters (rows
  /// read, partitions done, rows out) as they report it. Answers their requests for more
  /// partitions from the queue local_supply() takes from. Takes every message as it comes,
  /// whatever its partition, so that a rank waiting for rank 0 to take its rows, or for its
  /// next partitions, always gets on. A rank's error fails the query (naming the rank) and
  /// cancels the others. Returns once every rank has ended. Called once, on one thread,
  /// concurrently with this rank's own pipeline.
  virtual void receive(const Sink& sink, GlobalSinkState& state) = 0;
  /// This rank's own run of the pipeline has ended (every partition it took, its tails too):
  /// its actors are idle for what the other ranks still run. Driver thread, at most once.
  virtual void own_partitions_ended() {}
  /// True when other ranks write their partitions' files themselves (SpreadOutput): receive()
  /// then sees no rows, only each partition's end (or its error).
  virtual bool writes_files() const = 0;
  /// The partitions that run nowhere, as earlier runs finished them (SpreadOutput::finished):
  /// the caller ends them in its sink itself.
  virtual const std::vector<int>& kept() const = 0;
  /// The sink this rank's own partitions run into: `sink` itself, or, when the pipeline's
  /// breaker exchanges its partial states (exchanges()), one that splits each partition's
  /// state into the ranks' shares when it ends, keeping this rank's share in `sink`'s state
  /// and sending the others to their ranks.
  virtual const Sink& own_sink(const Sink& sink) = 0;
  /// Whether the breaker's partial states are exchanged (Sink::exchanges_partials): each rank
  /// merges and finalizes a share of the keys, and the breaker's state here holds this rank's
  /// share only; take_shares() has the others'.
  virtual bool exchanges() const = 0;
  /// After finish(), with exchanges(): every other rank's finalized share, in rank order.
  virtual std::vector<Batch> take_shares() = 0;
  /// Whether the other ranks write the pipeline after the breaker, one key range each
  /// (SpreadOutput::ranges, and that pipeline travelled with the order): they then send
  /// take_shares() nothing (nor, for a sort, their partitions' rows), and this rank, while
  /// receive() runs, waits for every partition to end (wait_partitions_ended), cuts its rows
  /// into one key range per rank, exchanges the ranges (exchange_ranges) and writes range 0 as
  /// the output's partition 0; rank r writes range r as partition r, which counts as written
  /// once its end has come.
  virtual bool writes_ranges() const { return false; }
  /// The ranks the query runs on (every one a key range's writer).
  virtual int ranks() const { return 1; }
  /// Blocks until every partition has ended, on every rank (the breaker's state here then
  /// holds this rank's whole share of the keys), after this rank's own run has ended; false
  /// when the query ended (failed or was cancelled) first. Not on receive()'s thread.
  virtual bool wait_partitions_ended() { return false; }
  /// With writes_ranges(), after wait_partitions_ended(): sends every other rank `splitters`
  /// (the keys that end each rank's range but the last; range_splitters) and `ranges[r]`, this
  /// rank's runs cut to range r, to rank r; returns the runs of range 0 that the other ranks
  /// cut from theirs (rows of `schema`, with their tags), once every rank's have come. Throws
  /// Cancelled when the query ends first. Not on receive()'s thread.
  virtual std::vector<TaggedRun> exchange_ranges(const Batch& splitters,
                                                 const std::vector<std::vector<TaggedRun>>& ranges,
                                                 const Schema& schema) {
    (void)splitters, (void)ranges, (void)schema;
    throw Error("internal: this run writes no key ranges");
  }
  /// Tells the other ranks to stop early (the sink is satisfied, or this rank failed); from
  /// then on no partition is handed out, to them or to local_supply(). Any thread; idempotent.
  virtual void cancel() = 0;
  /// Waits for every rank to end (taking, and dropping, what receive() did not, and answering
  /// requests for partitions); per rank (index = rank): partitions run, rows and file bytes
  /// read, output file bytes written, busy
  /// seconds of the calls it made to its own actors, and the most result batches it had out to
  /// this rank at once. After receive().
  virtual std::vector<RankStats> finish() = 0;
  /// After finish(), per pool: what the other ranks' calls to their own actors added (batches,
  /// rows, busy seconds, retries, timeouts); rank 0's pool counted every other call.
  virtual const std::vector<UdfStats>& udf_figures() const = 0;
};

/// Decides whether a query's first pipeline can run on several ranks, and starts it there.
class PartitionSpreader {
 public:
  virtual ~PartitionSpreader() = default;
  /// Starts the remote share of `plan`'s first pipeline (planned from `optimized`), or returns
  /// null when the plan's shape keeps it on this rank. `query` holds the query's started pools;
  /// other ranks' UDF batches are dispatched to them. `output`: see SpreadOutput.
  virtual std::unique_ptr<SpreadRun> spread(const LogicalNode& optimized, const PhysicalPlan& plan,
                                            QueryContext& query, const SpreadOutput& output) = 0;
  /// One line for explain(): how the first pipeline's partitions would be spread, or why they
  /// stay on rank 0.
  virtual std::string explain(const LogicalNode& optimized, const PhysicalPlan& plan) = 0;
  /// The ranks the first pipeline's partitions would run on (1: rank 0 alone), and whether its
  /// breaker (an aggregate, a top-k) runs on each of them too, only the partitions' partial
  /// states going to rank 0.
  struct Spread {
    int ranks = 1;
    bool partials = false;
    size_t pipeline = 0;  ///< the spread pipeline (leftmost_pipeline)
    /// The pipeline after its breaker travels with it: a write after an exchange may be spread
    /// by key range (writes_by_range tells whether the plan allows it).
    bool tail = false;
  };
  virtual Spread spread_ranks(const LogicalNode& optimized, const PhysicalPlan& plan) = 0;
  /// The join of `optimized` to run as a hash exchange of both sides (its right side is too
  /// large for every rank to read whole, or calls a UDF), or null.
  virtual const LogicalNode* shuffled_join(const LogicalNode& optimized) {
    (void)optimized;
    return nullptr;
  }
  /// Starts the exchange of one side of `join` (pipeline `at` of `plan`, which ends in its
  /// ShuffleSink) over every rank; `*id` names it for the spread that joins the buckets and
  /// for forget_exchanges. Rank 0 runs its share as for spread().
  virtual std::unique_ptr<SpreadRun> spread_join_side(const LogicalNode& join, bool left,
                                                      const PhysicalPlan& plan, size_t at,
                                                      QueryContext& query,
                                                      const SpreadOutput& output, uint64_t* id) {
    (void)join, (void)left, (void)plan, (void)at, (void)query, (void)output, (void)id;
    return nullptr;
  }
  /// The ranks drop the buckets that the exchanges `ids` left there.
  virtual void forget_exchanges(const std::vector<uint64_t>& ids) { (void)ids; }
};

}  // namespace ember
