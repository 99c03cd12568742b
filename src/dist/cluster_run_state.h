// Rank 0's side of a spread query (ClusterRun), shared by the files that implement it:
// cluster_run.cpp (the orders, the queue of partitions handed out as ranks ask, pacing and
// lending idle actors) and cluster_run_intake.cpp (what the ranks send back as it arrives).
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dist/cluster_run.h"
#include "dist/pool_service.h"
#include "dist/remote_actor.h"
#include "dist/share_exchange.h"

namespace ember::dist {

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

/// What rank 0 knows of a rank's pace, to pace what it hands the rank.
struct Pace {
  int held = 0;       ///< partitions handed to it that have not ended
  int most_held = 0;  ///< the most it has held at once: what it runs at once and its reserve
  int64_t ended = 0;  ///< its partitions that have ended
};

/// The most partitions a rank with `pace` may hold while the rank that has ended most has
/// ended `lead`: the same fraction of the most it has held as its pace is of the leader's (at
/// least one); any number while it leads or has ended none.
int paced_hold_limit(const Pace& pace, int64_t lead);

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
        first_pool_(output.first_pool),
        partials_(partials),
        exchange_(partials && plan.pipelines.at(at).breaker &&
                  plan.pipelines.at(at).breaker->exchanges_partials() && !states_to_rank_0()),
        ranges_(by_ranges(output, partials, plan.pipelines.at(at), exchange_)),
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
    const Source& source = *plan.pipelines.at(at).source;
    for (int i = 0; i < n; ++i) {
      const int p = todo[static_cast<size_t>(i)];
      // A partition only one rank can open (a join's buckets) is that rank's from the start.
      if (const int home = source.home_rank(p); home >= 0 && home < ranks)
        share[static_cast<size_t>(home)].push_back(p);
      else if (i < first * ranks)
        share[static_cast<size_t>(i % ranks)].push_back(p);
      else
        queue_.push_back(p);
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
      if (mine.empty() && !exchange_ && !ranges_) continue;
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
  bool writes_ranges() const override { return ranges_; }
  int ranks() const override { return transport_.ranks(); }
  bool wait_partitions_ended() override;
  std::vector<TaggedRun> exchange_ranges(const Batch& splitters,
                                         const std::vector<std::vector<TaggedRun>>& ranges,
                                         const Schema& schema) override;
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
    changed_.notify_all();
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
    own_run_ended_ = true;
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
    stats_[0].rows_shuffled_out += range_rows_out_;
    stats_[0].rows_shuffled_in = shares_in_ + range_rows_in_;
    return stats_;
  }

 private:
  /// Rank 0's own run takes from here: the partitions set aside for it, then the queue.
  class OwnShare final : public PartitionSupply {
   public:
    explicit OwnShare(ClusterRun& run) : run_(run) {}
    SuppliedPartition take() override { return run_.take_own(); }
    void set_waker(std::function<void()> wake) override { run_.set_own_waker(std::move(wake)); }
    void ended(int) override { run_.own_partition_ended(); }
    /// One of those set aside for rank 0 (a queued one may go to another rank first).
    int peek() override {
      std::lock_guard lock(run_.mu_);
      return run_.own_first_.empty() ? -1 : run_.own_first_.front();
    }

   private:
    ClusterRun& run_;
  };

  /// Whether the write after `p` is spread by key range (writes_ranges()): the output asks for
  /// it, and `p`'s breaker is a group-by whose groups are exchanged, or a sort whose partitions
  /// stay sorted on the ranks that ran them (`partials`: it travelled).
  static bool by_ranges(const SpreadOutput& output, bool partials, const Pipeline& p,
                        bool exchange) {
    if (!output.ranges || !partials || !p.breaker || ranges_disabled()) return false;
    if (!p.breaker->range_keys()) return false;
    return exchange || !p.breaker->exchanges_partials();
  }
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
  /// Rank 0's next partition: one set aside for it, else from the queue as its pace allows
  /// (paced as the other ranks are: Later while it holds as many as that, until one ends).
  SuppliedPartition take_own();
  void set_own_waker(std::function<void()> wake);
  /// One of rank 0's partitions ended: it may take another (its run's waker, after a Later).
  void own_partition_ended();
  /// Hands `partitions` to rank r, each under a key of its own for its rows and its end;
  /// `last`: the queue is empty, so the rank asks for no more. Receiving thread (the
  /// constructor's before it starts), but for an empty grant, which any thread may send.
  void grant(int r, const std::vector<int>& partitions, bool last);
  /// Answers rank r's request held in deferred_[r], or holds it back further while r holds as
  /// many as its pace allows (hold_limit): then it is answered at the end of one of r's
  /// partitions. Receiving thread.
  void answer(int r);
  /// The most partitions worker rank r may hold now (paced_hold_limit against the rank, rank 0
  /// included, that has ended most), so that what each rank still holds when the queue runs dry
  /// takes it about as long. Receiving thread, mu_ held.
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
  /// Rank r's rows of key range 0 (exchange_ranges).
  void take_range(int r, process::MessageReader& in);
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
  int first_pool_;  ///< the query's pool the chain's first UDF calls (SpreadOutput::first_pool)
  bool partials_;
  bool exchange_;                           ///< the partial states are exchanged (exchanges())
  bool ranges_;                             ///< the write is spread by key range (writes_ranges())
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
  /// The most partitions a worker rank has ended (pace_[r].ended): rank 0's lead to keep.
  std::atomic<int64_t> workers_lead_{0};
  Pace own_pace_;                 // guarded by mu_: rank 0's own run
  bool own_waiting_ = false;      // guarded by mu_: take_own() said Later
  SupplyWaker own_waker_;         // guarded by mu_: rank 0's run's
  bool finished_ = false;         // driver thread only
  std::vector<RankStats> stats_;  ///< per rank; receiving thread, then the driver's
  std::vector<UdfStats> udfs_;    ///< per pool; likewise
  std::vector<int> kept_parts_;   ///< finished by earlier runs: run nowhere, ascending
  // What wait_partitions_ended() waits for: partitions handed to other ranks (grant(), on the
  // receiving thread or in the constructor) and those of them ended (partition_ended()).
  std::atomic<int64_t> handed_{0};
  std::atomic<int64_t> worker_ends_{0};
  bool own_run_ended_ = false;       // guarded by mu_: own_partitions_ended() came
  std::condition_variable changed_;  // with mu_: a partition or a range piece came, or cancel()
  /// A write by key range: per rank, its rows of range 0 (receiving thread, under mu_), their
  /// columns' types, and how many ranks' came.
  std::vector<std::optional<std::vector<TaggedRun>>> range_pieces_;  // guarded by mu_
  Schema range_schema_;                                              // guarded by mu_
  int ranges_in_ = 0;                                                // guarded by mu_
  int64_t range_rows_out_ = 0;  ///< rows of this rank's ranges sent to other ranks (driver)
  int64_t range_rows_in_ = 0;   ///< rows of range 0 from other ranks (driver, after the wait)
  std::function<void(int, int64_t)> part_written_;          ///< SpreadOutput::part_written
  int64_t checkpoint_rows_;                                 ///< SpreadOutput::checkpoint_rows
  std::function<void(const JournalPiece&)> piece_written_;  ///< SpreadOutput::piece_written
  std::function<void(UploadedParts)> part_uploaded_;        ///< SpreadOutput::part_uploaded
};

}  // namespace ember::dist
