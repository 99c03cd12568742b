// A spread query on rank 0: the orders sent to the worker ranks, the queue of partitions handed
// out as ranks ask, the taking of what they send back (rows, progress, ends) as it arrives, and
// the wait for all of them at the end.
#include "dist/cluster_run.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <utility>

#include "core/cancelled.h"
#include "dist/batch_message.h"
#include "dist/piece_message.h"
#include "dist/pipeline_message.h"
#include "dist/pool_service.h"
#include "dist/rank_protocol.h"
#include "dist/remote_actor.h"
#include "dist/share_exchange.h"
#include "dist/storage_message.h"

namespace ember::dist {

/// Partitions set aside for each rank at the start (the first ranks x this many, round robin),
/// before any rank asks: no rank waits for a round trip to begin, and a query with few
/// partitions still runs on every rank rather than on rank 0, which starts first. The rest are
/// handed out as the ranks ask for them.
constexpr int kFirstPartitionsPerRank = 2;

/// How many partitions each rank is handed at the start, out of `n`.
int first_partitions_per_rank(int n, int ranks) {
  return std::min(kFirstPartitionsPerRank, (n + ranks - 1) / ranks);
}

namespace {

/// The path before the exchange, for benchmarks (bench/dist/run.sh): every partition's
/// partial state to rank 0, which merges them all.
bool states_to_rank_0() {
  const char* v = std::getenv("EMBER_DIST_NO_EXCHANGE");
  return v != nullptr && *v == '1';
}

/// A partition another rank runs, as rank 0 takes its rows.
struct Arriving {
  int partition = 0;
  int rank = 0;
  std::unique_ptr<LocalSinkState> local;  ///< made at its first batch (or its end)
  bool ended = false;                     ///< combined early (full): later rows are dropped
};

/// A rank's counters as it last reported them.
struct Reported {
  int64_t partitions = 0, rows = 0, rows_out = 0;
};

/// What rank 0 knows of a worker rank's pace, to answer its requests (receiving thread).
struct Pace {
  int held = 0;       ///< partitions handed to it that have not ended
  int most_held = 0;  ///< the most it has held at once: what it runs at once and its reserve
  int64_t ended = 0;  ///< its partitions that have ended
};

class ClusterRun final : public SpreadRun {
 public:
  /// `at`: the spread pipeline of `plan`; `partials`: its breaker travelled with it (the other
  /// ranks send their partitions' partial states, and only the rows past them).
  ClusterRun(Transport& transport, uint64_t id, const PhysicalPlan& plan, size_t at,
             const std::string& pipeline, bool partials, QueryContext& query,
             const SpreadOutput& output)
      : transport_(transport),
        id_(id),
        files_(output.files),
        partials_(partials),
        exchange_(partials && plan.pipelines.at(at).breaker &&
                  plan.pipelines.at(at).breaker->exchanges_partials() && !states_to_rank_0()),
        query_(query),
        box_(reply_key_open()),
        own_(*this),
        kept_parts_(output.finished),
        part_written_(output.part_written),
        checkpoint_rows_(output.checkpoint_rows),
        piece_written_(output.piece_written),
        part_uploaded_(output.part_uploaded) {
    const int ranks = transport.ranks();
    // What earlier runs finished runs nowhere: the rest is shared out as if it were all.
    std::sort(kept_parts_.begin(), kept_parts_.end());
    std::vector<int> todo;
    for (int p = 0; p < plan.pipelines.at(at).source->num_partitions(); ++p)
      if (!std::binary_search(kept_parts_.begin(), kept_parts_.end(), p)) todo.push_back(p);
    const int n = static_cast<int>(todo.size());
    partitions_ = n;
    const int first = first_partitions_per_rank(n, ranks);
    std::vector<std::vector<int>> share(static_cast<size_t>(ranks));
    for (int i = 0; i < n; ++i) {
      if (i < first * ranks)
        share[static_cast<size_t>(i % ranks)].push_back(todo[static_cast<size_t>(i)]);
      else
        queue_.push_back(todo[static_cast<size_t>(i)]);
    }
    own_first_.assign(share[0].begin(), share[0].end());
    open_pool_service(id_, &query);
    reported_.resize(static_cast<size_t>(ranks));
    running_.assign(static_cast<size_t>(ranks), false);
    idle_.assign(static_cast<size_t>(ranks), false);
    told_.assign(static_cast<size_t>(ranks), false);
    pace_.resize(static_cast<size_t>(ranks));
    deferred_.resize(static_cast<size_t>(ranks));
    stats_.resize(static_cast<size_t>(ranks));
    shares_.resize(static_cast<size_t>(ranks));
    for (int r = 0; r < ranks; ++r) stats_[static_cast<size_t>(r)].rank = r;
    std::vector<bool> own_everywhere(plan.pools.size(), true);
    for (int r = 1; r < ranks; ++r) {
      const auto& mine = share[static_cast<size_t>(r)];
      // Fewer partitions than ranks: nothing to ask for either, unless the rank merges a share
      // of an exchange (it owns some of the keys whichever ranks run the partitions).
      if (mine.empty() && !exchange_) continue;
      const uint64_t done = reply_key_open_into(box_, r);
      done_keys_[done] = r;
      const auto own = own_actor_keys(plan, r);
      for (size_t i = 0; i < own.size(); ++i)
        if (own[i].empty()) own_everywhere[i] = false;
      ++ranks_running_;
      running_[static_cast<size_t>(r)] = true;
      transport_.send(r, kTagQuery, order(done, r, plan, own, pipeline, output));
      grant(r, mine, queue_.empty());  // after the order: the rank reads them in this order
    }
    // Every other rank serves its partitions on its own actors: rank 0 serves its own on its
    // own too (when it has any), so that each rank's actors carry their rank's share. A pool
    // that some rank lacks keeps serving every rank's calls from all its actors, least loaded.
    for (size_t i = 0; i < plan.pools.size(); ++i)
      if (own_everywhere[i] && !own_first_.empty()) {
        query_.pool(static_cast<int>(i)).keep_to_own_actors(true);
        kept_.push_back(static_cast<int>(i));
        lent_before_.push_back(query_.pool(static_cast<int>(i)).batches_lent());
      }
    // A rank with nothing to run (no order: fewer partitions than ranks) has idle actors
    // throughout; one that ran out at its first grant, from the start.
    for (int r = 1; r < ranks; ++r) {
      if (running_[static_cast<size_t>(r)]) {
        check_idle(r);
      } else {
        std::lock_guard lock(mu_);
        rank_idle_locked(r);
      }
    }
  }

  ~ClusterRun() override {
    if (finished_) return;
    cancel();
    try {
      finish();
    } catch (...) {  // the query has failed already; its first error is what it reports
    }
  }

  // SpreadRun
  PartitionSupply& local_supply() override { return own_; }
  bool writes_files() const override { return files_; }
  const std::vector<int>& kept() const override { return kept_parts_; }
  const std::vector<UdfStats>& udf_figures() const override { return udfs_; }
  const Sink& own_sink(const Sink& sink) override {
    if (!exchange_) return sink;
    sharing_ = std::make_unique<SharingSink>(sink, transport_, id_);
    return *sharing_;
  }
  bool exchanges() const override { return exchange_; }
  std::vector<Batch> take_shares() override {
    std::vector<Batch> out;
    for (size_t r = 1; r < shares_.size(); ++r)
      out.push_back(shares_[r].empty() ? Batch() : Batch::concat(shares_[r]));
    shares_.clear();
    return out;
  }
  void cancel() override {
    std::lock_guard lock(mu_);
    if (cancelled_) return;
    cancelled_ = true;
    process::MessageWriter out;
    out.begin(process::Op::Stop);
    out.put(id_);
    for (const auto& [key, r] : done_keys_) transport_.send(r, kTagQuery, out.bytes());
    // A request held back gets its answer now: nothing more (a rank settles it before it ends).
    for (size_t r = 0; r < deferred_.size(); ++r)
      if (std::exchange(deferred_[r], 0) > 0) grant(static_cast<int>(r), {}, true);
  }
  void receive(const Sink& sink, GlobalSinkState& state) override {
    sink_ = &sink;
    state_ = &state;
    while (ranks_running_ > 0) take(reply_wait(box_));
    sink_ = nullptr;
  }
  void own_partitions_ended() override {
    std::lock_guard lock(mu_);
    rank_idle_locked(0);
  }
  std::vector<RankStats> finish() override {
    finished_ = true;
    sink_ = nullptr;  // what receive() left is taken and dropped
    while (ranks_running_ > 0) take(reply_wait(box_));
    // Every rank has ended: no call for this query can arrive any more.
    close_pool_service(id_);
    for (const auto& [key, r] : done_keys_) reply_key_close(key);
    for (const auto& [key, a] : arriving_) reply_key_close(key);
    arriving_.clear();
    reply_key_close(box_);
    for (size_t k = 0; k < kept_.size(); ++k) {
      ActorPool& pool = query_.pool(kept_[k]);
      stats_[0].udf_batches_elsewhere += pool.batches_lent() - lent_before_[k];
      pool.keep_to_own_actors(false);  // and the loans end
    }
    if (sharing_) stats_[0].rows_shuffled_out = sharing_->rows_sent();
    stats_[0].rows_shuffled_in = shares_in_;
    return stats_;
  }

 private:
  /// Rank 0's own run takes from here: the partitions set aside for it, then the queue.
  class OwnShare final : public PartitionSupply {
   public:
    explicit OwnShare(ClusterRun& run) : run_(run) {}
    SuppliedPartition take() override { return run_.take_own(); }
    void set_waker(std::function<void()>) override {}  // it never says Later
    /// One of those set aside for rank 0 (a queued one may go to another rank first).
    int peek() override {
      std::lock_guard lock(run_.mu_);
      return run_.own_first_.empty() ? -1 : run_.own_first_.front();
    }

   private:
    ClusterRun& run_;
  };

  /// Per pool: the keys of rank r's own actors of it (none: r calls rank 0's pool).
  static std::vector<std::vector<uint64_t>> own_actor_keys(const PhysicalPlan& plan, int r) {
    std::vector<std::vector<uint64_t>> own(plan.pools.size());
    for (size_t i = 0; i < plan.pools.size(); ++i)
      for (const HostedActor& a : hosted_actors(plan.pools[i].get()))
        if (a.rank == r) own[i].push_back(a.key);
    return own;
  }
  std::string order(uint64_t done, int r, const PhysicalPlan& plan,
                    const std::vector<std::vector<uint64_t>>& own, const std::string& pipeline,
                    const SpreadOutput& output);
  SuppliedPartition take_own() {
    std::lock_guard lock(mu_);
    std::deque<int>& from = own_first_.empty() ? queue_ : own_first_;
    if (cancelled_ || from.empty()) return {};
    const int p = from.front();
    from.pop_front();
    return {SuppliedPartition::Kind::Partition, p};
  }
  /// Hands `partitions` to rank r, each under a key of its own for its rows and its end;
  /// `last`: the queue is empty, so the rank asks for no more. Receiving thread (the
  /// constructor's before it starts), but for an empty grant, which any thread may send.
  void grant(int r, const std::vector<int>& partitions, bool last);
  /// Answers rank r's request held in deferred_[r], or holds it back further while r holds as
  /// many as its pace allows (hold_limit): then it is answered at the end of one of r's
  /// partitions. Receiving thread.
  void answer(int r);
  /// The most partitions rank r may hold now (receiving thread): a rank that has ended
  /// partitions at a fraction of the pace of the rank that has ended most holds that fraction of
  /// the most it has held (at least one), so that what each rank still holds when the queue
  /// runs dry takes it about as long; a rank that leads, or has ended none yet, holds as many
  /// as it asks for.
  int hold_limit(int r) const;
  /// One of rank r's partitions ended (or failed): a request it has held back may be answered.
  void partition_ended(int r);
  /// Worker rank r: once it holds no partition and the queue is empty, its actors are idle
  /// (rank_idle_locked). Receiving thread (the constructor's before it starts).
  void check_idle(int r);
  /// Rank r's actors are idle from now on (rank 0: its own run has ended): rank
  /// 0's kept pools lend them to its batches and to the other ranks' (ActorPool::lend_spares,
  /// the pool service), and each worker rank still running is told once (Op::Lend) that its
  /// batches may come here while its own actors are busy. Requires mu_.
  void rank_idle_locked(int r);
  /// One message from a rank: its partitions' rows, ends and errors, its progress, its
  /// requests for partitions, its end.
  void take(const Incoming& m);
  void take_rows(Arriving& a, process::MessageReader& in, const Incoming& m);
  /// Rows a UDF rejected in one of `a`'s chunks: into the query's, in input order.
  void take_rejected(Arriving& a, process::MessageReader& in, const Incoming& m);
  void count(int rank, const Reported& now);
  void rank_ended(int rank, process::MessageReader& in);
  /// Whether `a`'s rows still go to the sink; a met limit tells the other ranks to stop.
  bool accepting(const Arriving& a);
  LocalSinkState& local(Arriving& a) {
    if (!a.local) a.local = sink_->local_state(*state_, a.partition);
    return *a.local;
  }
  /// A rank's error (not a cancellation) ends the query on every rank.
  void fail(std::exception_ptr error) {
    cancel();
    query_.fail(std::move(error));
  }

  Transport& transport_;
  uint64_t id_;
  bool files_;
  bool partials_;
  bool exchange_;                           ///< the partial states are exchanged (exchanges())
  int partitions_ = 0;                      ///< run on some rank: shares each rank merges
  std::unique_ptr<SharingSink> sharing_;    ///< rank 0's own partitions' sink, exchanging
  std::vector<std::vector<Batch>> shares_;  ///< per rank: its finalized share; receiving thread
  int64_t shares_in_ = 0;                   ///< rows of other ranks' shares merged here
  QueryContext& query_;
  uint64_t box_;  ///< every message of this query from the other ranks arrives here
  OwnShare own_;
  std::map<uint64_t, Arriving> arriving_;  ///< by partition key; receiving thread
  std::map<uint64_t, int> done_keys_;      ///< a rank's key for its progress and end -> rank
  int ranks_running_ = 0;                  ///< receiving thread (set before it starts)
  std::vector<Reported> reported_;         ///< per rank; receiving thread
  std::vector<int> kept_;                  ///< pools kept to rank 0's own actors
  std::vector<int64_t> lent_before_;       ///< per kept pool: batches_lent() at the start
  const bool no_lending_ =
      lending_disabled();       ///< EMBER_DIST_NO_LENDING=1: idle actors lend nothing
  std::vector<bool> running_;   ///< per rank: runs partitions (it got an order)
  std::vector<bool> idle_;      // guarded by mu_: per rank, rank_idle_locked
  std::vector<bool> told_;      // guarded by mu_: per rank, sent Op::Lend
  const Sink* sink_ = nullptr;  ///< receive()'s, while it runs
  GlobalSinkState* state_ = nullptr;
  std::mutex mu_;
  bool cancelled_ = false;          // guarded by mu_
  std::deque<int> own_first_;       // guarded by mu_: set aside for rank 0, ascending
  std::deque<int> queue_;           // guarded by mu_: handed to no rank yet, ascending
  std::vector<uint32_t> deferred_;  // guarded by mu_: per rank, a request not answered yet
  std::vector<Pace> pace_;          ///< per rank; receiving thread
  bool finished_ = false;           // driver thread only
  std::vector<RankStats> stats_;    ///< per rank; receiving thread, then the driver's
  std::vector<UdfStats> udfs_;      ///< per pool; likewise
  std::vector<int> kept_parts_;     ///< finished by earlier runs: run nowhere, ascending
  std::function<void(int, int64_t)> part_written_;          ///< SpreadOutput::part_written
  int64_t checkpoint_rows_;                                 ///< SpreadOutput::checkpoint_rows
  std::function<void(const JournalPiece&)> piece_written_;  ///< SpreadOutput::piece_written
  std::function<void(UploadedParts)> part_uploaded_;        ///< SpreadOutput::part_uploaded
};

std::string ClusterRun::order(uint64_t done, int r, const PhysicalPlan& plan,
                              const std::vector<std::vector<uint64_t>>& own,
                              const std::string& pipeline, const SpreadOutput& output) {
  process::MessageWriter out;
  out.begin(process::Op::Init);
  out.put(id_);
  out.put(done);
  out.put(static_cast<int32_t>(r));
  out.put(static_cast<uint32_t>(plan.pools.size()));
  for (size_t i = 0; i < plan.pools.size(); ++i) {
    // Local first: a rank that hosts actors of the pool calls them directly (its batches
    // never cross the network); a rank without any goes through rank 0's pool, with as
    // many proxies as the pool has actors, so that it can keep each of them busy.
    out.put(static_cast<int32_t>(own[i].empty() ? std::max(1, plan.pools[i]->concurrency) : 0));
    out.put(static_cast<uint32_t>(own[i].size()));
    for (uint64_t key : own[i]) out.put(key);
  }
  out.put_string(pipeline);
  out.put(static_cast<uint8_t>(output.files));
  out.put(static_cast<uint8_t>(output.format));
  out.put(static_cast<uint8_t>(output.parquet.compression));
  out.put(output.parquet.row_group_rows);
  out.put(static_cast<uint8_t>(output.arrow.compression));
  // Absolute: a rank's working directory need not be rank 0's.
  out.put_string(output.files ? std::filesystem::absolute(output.dir).string() : "");
  out.put(output.memory_budget_bytes);
  // A resumable write with checkpoints: where the unfinished partitions resume, on any rank.
  out.put(output.checkpoint_rows);
  put_unfinished(out, output.unfinished);
  out.put_string(output.object_store);
  put_storage(out, output.storage);
  // With an exchange, each rank merges a share of every partition's state: this many.
  out.put(static_cast<uint8_t>(exchange_));
  out.put(static_cast<int32_t>(partitions_));
  return out.bytes();
}

void ClusterRun::grant(int r, const std::vector<int>& partitions, bool last) {
  process::MessageWriter out;
  out.begin(process::Op::Grant);
  out.put(id_);
  out.put(static_cast<uint32_t>(partitions.size()));
  for (int p : partitions) {
    // A key opened for a rank that is lost already gets that loss at once: the query fails.
    const uint64_t key = reply_key_open_into(box_, r);
    arriving_[key] = Arriving{p, r, nullptr, false};
    out.put(static_cast<int32_t>(p));
    out.put(key);
  }
  out.put(static_cast<uint8_t>(last));
  if (!partitions.empty()) {
    Pace& pace = pace_[static_cast<size_t>(r)];
    pace.held += static_cast<int>(partitions.size());
    pace.most_held = std::max(pace.most_held, pace.held);
  }
  transport_.send(r, kTagQuery, out.bytes());
}

int ClusterRun::hold_limit(int r) const {
  const Pace& pace = pace_[static_cast<size_t>(r)];
  // Rank 0's own ended partitions: every one counted, less those the other ranks reported.
  // The partitions earlier runs finished count as done (the caller ends them) but ran nowhere.
  int64_t lead = query_.partitions_done.load(std::memory_order_relaxed) -
                 static_cast<int64_t>(kept_parts_.size());
  for (const Reported& other : reported_) lead -= other.partitions;
  for (const Pace& other : pace_) lead = std::max(lead, other.ended);
  if (pace.ended == 0 || pace.ended >= lead) return std::numeric_limits<int>::max();
  // Every count runs from the query's start: their ratio is the ranks' ratio of paces.
  const auto share = static_cast<double>(pace.most_held) * static_cast<double>(pace.ended) /
                     static_cast<double>(lead);
  return std::max(1, static_cast<int>(std::ceil(share - 1e-9)));
}

void ClusterRun::answer(int r) {
  std::vector<int> handed;
  bool last = false;
  {
    std::lock_guard lock(mu_);
    const uint32_t wanted = deferred_[static_cast<size_t>(r)];
    if (wanted == 0) return;  // answered already (cancel)
    if (!cancelled_ && !queue_.empty()) {
      const int room = hold_limit(r) - pace_[static_cast<size_t>(r)].held;
      if (room <= 0) return;  // held back: r holds at least one, whose end comes here
      while (handed.size() < std::min<size_t>(wanted, static_cast<size_t>(room)) &&
             !queue_.empty()) {
        handed.push_back(queue_.front());
        queue_.pop_front();
      }
    }
    deferred_[static_cast<size_t>(r)] = 0;
    last = cancelled_ || queue_.empty();
  }
  grant(r, handed, last);
}

void ClusterRun::partition_ended(int r) {
  Pace& pace = pace_[static_cast<size_t>(r)];
  --pace.held;
  ++pace.ended;
  answer(r);
  check_idle(r);
}

void ClusterRun::check_idle(int r) {
  std::lock_guard lock(mu_);
  if (queue_.empty() && pace_[static_cast<size_t>(r)].held == 0) rank_idle_locked(r);
}

void ClusterRun::rank_idle_locked(int r) {
  if (cancelled_ || idle_[static_cast<size_t>(r)] || no_lending_) return;
  idle_[static_cast<size_t>(r)] = true;
  if (r != 0)
    for (int i : kept_) query_.pool(i).lend_spares(r);
  process::MessageWriter out;
  out.begin(process::Op::Lend);
  out.put(id_);
  for (size_t w = 1; w < idle_.size(); ++w) {
    if (!running_[w] || idle_[w] || told_[w]) continue;
    told_[w] = true;
    transport_.send(static_cast<int>(w), kTagQuery, out.bytes());
  }
}

void ClusterRun::take(const Incoming& m) {
  process::MessageReader in(m.bytes());
  const uint64_t key = in.get<uint64_t>();
  const auto op = in.header().op;
  if (auto done = done_keys_.find(key); done != done_keys_.end()) {
    if (op == process::Op::Progress) {
      Reported now;
      now.partitions = in.get<int64_t>();
      now.rows = in.get<int64_t>();
      now.rows_out = in.get<int64_t>();
      count(done->second, now);
    } else if (op == process::Op::Want) {
      {
        std::lock_guard lock(mu_);
        deferred_[static_cast<size_t>(done->second)] = in.get<uint32_t>();
      }
      answer(done->second);
    } else if (op == process::Op::Ready) {
      rank_ended(done->second, in);
    } else if (op == process::Op::Result) {
      // A batch of the rank's finalized share of an exchanged breaker's keys.
      const auto rows = in.get<int64_t>();
      if (!m.data)
        throw Error("rank " + std::to_string(done->second) + ": a share without columns");
      if (!query_.cancelled())
        shares_[static_cast<size_t>(done->second)].push_back(
            to_batch(unpack_columns(in, m.data), rows));
    } else if (op == process::Op::Failed) {
      // The rank was lost (it stopped answering): it will never send its end, so it has
      // ended for this query, and the query fails with why.
      --ranks_running_;
      try {
        raise_failure(in, done->second);
      } catch (...) {
        fail(std::current_exception());
      }
    }
    return;
  }
  auto it = arriving_.find(key);
  if (it == arriving_.end()) return;  // after the partition's end: not expected
  Arriving& a = it->second;
  // Its Stop or its Failed: one per partition.
  const bool end = op != process::Op::Result && op != process::Op::Rejected &&
                   op != process::Op::Partial && op != process::Op::Piece;
  try {
    if (op == process::Op::Result) return take_rows(a, in, m);
    if (op == process::Op::Partial) {
      // The partition aggregated where it ran: its states, merged at its end as its rows were.
      const std::string_view bytes = in.get_string();
      if (exchange_) shares_in_ += in.get<int64_t>();  // this rank's share of it
      if (accepting(a)) sink_->adopt_partial(*state_, local(a), bytes);
      return;
    }
    if (op == process::Op::Rejected) return take_rejected(a, in, m);
    if (op == process::Op::Piece) {
      // Committed (fsynced, renamed into place) before it was sent: journaled now.
      JournalPiece piece = get_piece(in);
      piece.partition = a.partition;
      if (piece_written_) piece_written_(piece);
      return;
    }
    if (op == process::Op::Stop) {
      // The rank committed the partition's part file before it sent its end: durable now.
      const int64_t rows = files_ ? in.get<int64_t>() : 0;
      // A part in an object store is up, not completed: rank 0 completes it at commit (or
      // aborts it), whether or not the query still accepts rows.
      if (files_ && in.get<uint8_t>() != 0) {
        UploadedParts up = get_uploaded(in);
        if (!part_uploaded_) throw Error("internal: an upload from a rank of a local write");
        part_uploaded_(std::move(up));
      }
      // With checkpoints its last piece came as a Piece, journaled already.
      if (files_ && part_written_ && checkpoint_rows_ == 0) part_written_(a.partition, rows);
      if (accepting(a)) sink_->combine(*state_, local(a));
      a.local.reset();
      a.ended = true;
    } else {
      a.ended = true;
      raise_failure(in, a.rank);
    }
  } catch (const Cancelled&) {
    // The rank ended the partition because the query ended (failed or had enough).
  } catch (...) {
    fail(std::current_exception());
  }
  if (end) partition_ended(a.rank);
}

void ClusterRun::take_rejected(Arriving& a, process::MessageReader& in, const Incoming& m) {
  const auto step = in.get<int32_t>();  // a pool, or -1 - a url_download's number
  const auto chunk = in.get<int64_t>();
  const auto rows = in.get<int64_t>();
  if (query_.cancelled()) return;
  if (!m.data) throw Error("rank " + std::to_string(a.rank) + ": rejected rows without columns");
  const bool pool = step >= 0 && static_cast<size_t>(step) < query_.pools().size();
  const int64_t download = -1 - static_cast<int64_t>(step);
  if (!pool && (download < 0 || static_cast<size_t>(download) >= query_.downloads()))
    throw Error("rank " + std::to_string(a.rank) + ": rejected rows of an unknown step");
  RejectedRows& into =
      pool ? query_.rejected(step) : query_.download_rejected(static_cast<int>(download));
  // Counted against max_failed_rows with every rank's: past it, the query fails here.
  into.adopt(a.partition, chunk, to_batch(unpack_columns(in, m.data), rows));
}

void ClusterRun::take_rows(Arriving& a, process::MessageReader& in, const Incoming& m) {
  // Taken, whether kept or dropped: the rank may send another in its place.
  process::MessageWriter taken;
  taken.begin(process::Op::Taken);
  taken.put(id_);
  taken.put(int64_t{1});
  transport_.send(a.rank, kTagQuery, taken.bytes());
  const auto rows = in.get<int64_t>();
  if (!accepting(a)) return;
  if (!m.data) throw Error("rank " + std::to_string(a.rank) + ": a batch without its columns");
  const Batch batch = to_batch(unpack_columns(in, m.data), rows);
  query_.rows_out.fetch_add(rows, std::memory_order_relaxed);
  if (partials_)
    sink_->sink_after_partial(*state_, local(a), batch);
  else
    sink_->sink(*state_, local(a), batch);
  if (sink_->full(*a.local)) {  // this partition alone met the limit: it is complete
    sink_->combine(*state_, *a.local);
    a.local.reset();
    a.ended = true;
  }
}

bool ClusterRun::accepting(const Arriving& a) {
  if (sink_ == nullptr || a.ended) return false;
  if (query_.cancelled()) return false;
  if (!sink_->satisfied(*state_)) return true;
  cancel();  // a limit was met: the other ranks stop early
  return false;
}

void ClusterRun::count(int rank, const Reported& now) {
  // A rank's counters only grow (a rank that failed reports zeros at its end).
  Reported& last = reported_[static_cast<size_t>(rank)];
  const auto grow = [](std::atomic<int64_t>* total, int64_t& from, int64_t to) {
    if (to <= from) return;
    if (total) total->fetch_add(to - from, std::memory_order_relaxed);
    from = to;
  };
  grow(&query_.partitions_done, last.partitions, now.partitions);
  grow(&query_.rows_read, last.rows, now.rows);
  // Rows that come back are counted as they are taken; a rank that writes its own files
  // counts the rows it wrote.
  grow(files_ ? &query_.rows_out : nullptr, last.rows_out, now.rows_out);
}

void ClusterRun::rank_ended(int rank, process::MessageReader& in) {
  --ranks_running_;
  Reported final;
  final.partitions = in.get<int64_t>();
  final.rows = in.get<int64_t>();
  final.rows_out = in.get<int64_t>();
  count(rank, final);
  RankStats& stats = stats_[static_cast<size_t>(rank)];
  stats.partitions = reported_[static_cast<size_t>(rank)].partitions;
  stats.rows = reported_[static_cast<size_t>(rank)].rows;
  stats.peak_results_in_flight = in.get<int64_t>();
  stats.bytes_read = in.get<int64_t>();
  stats.bytes_written = in.get<int64_t>();
  stats.rows_shuffled_out = in.get<int64_t>();
  stats.rows_shuffled_in = in.get<int64_t>();
  stats.udf_batches_elsewhere = in.get<int64_t>();
  const auto pools = in.get<uint32_t>();
  if (udfs_.size() < pools) udfs_.resize(pools);
  for (uint32_t i = 0; i < pools; ++i) {
    UdfStats& u = udfs_[i];
    u.batches += in.get<int64_t>();
    u.rows += in.get<int64_t>();
    u.retries += in.get<int64_t>();
    u.timeouts += in.get<int64_t>();
    const double busy = in.get<double>();
    u.busy_seconds += busy;
    stats.busy_seconds += busy;
    // Constructions only this rank saw (a crashed process actor's restart) count in the pool.
    const auto actors = in.get<uint32_t>();
    for (uint32_t a = 0; a < actors; ++a) {
      const auto key = in.get<uint64_t>();
      note_hosted_inits(key, in.get<int64_t>());
    }
  }
}

}  // namespace

bool lending_disabled() {
  const char* v = std::getenv("EMBER_DIST_NO_LENDING");
  return v != nullptr && *v == '1';
}

std::unique_ptr<SpreadRun> start_cluster_run(Transport& transport, uint64_t id,
                                             const PhysicalPlan& plan, size_t at,
                                             const std::string& pipeline, bool partials,
                                             QueryContext& query, const SpreadOutput& output) {
  return std::make_unique<ClusterRun>(transport, id, plan, at, pipeline, partials, query, output);
}

}  // namespace ember::dist
