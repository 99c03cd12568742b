// One query's run on a worker rank (its state, shared by its pipeline and the transport's
// thread) and the sink its partitions end in, which forwards what they produce to rank 0: rows
// under a window, part files' ends, partial states, or an exchange's shares (partition_worker.h
// has the protocol).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/cancelled.h"
#include "dist/batch_message.h"
#include "dist/granted_partitions.h"
#include "dist/share_exchange.h"
#include "dist/storage_message.h"
#include "dist/transport.h"
#include "exec/query_context.h"
#include "exec/sinks/file_sink.h"
#include "io/output/staged_output.h"

namespace ember::dist {

/// Result batches a rank may have sent to rank 0 that rank 0 has not yet taken
/// (docs/cluster.md): enough to keep the network busy, few enough that a rank never runs far
/// ahead of rank 0 taking its rows.
constexpr int64_t kResultWindow = 8;

class KeptBuckets;

/// One query's run on this rank.
struct Run {
  Run(Transport& t, uint64_t done_key) : transport(t), granted(t, done_key) {}

  Transport& transport;  ///< this rank's
  std::mutex mu;
  bool cancelled = false;           // guarded by mu
  QueryContext* context = nullptr;  // guarded by mu; set while the pipeline runs
  bool done = false;                // guarded by mu
  int64_t results_out = 0;          // guarded by mu: sent to rank 0, not yet taken there
  int64_t results_peak = 0;         // guarded by mu
  /// Partitions blocked on the window, woken when rank 0 takes a batch (or the run ends).
  std::vector<std::function<void()>> waiting;  // guarded by mu
  std::thread thread;
  GrantedPartitions granted;  ///< the partitions it runs, as rank 0 hands them out
  ShareInbox shares;          ///< an exchange's shares for this rank, from every rank
  /// A write by key range: rank 0's splitters (partition -1) and the other ranks' rows of this
  /// rank's range (partition: the sender), as they come.
  ShareInbox ranges;
  std::atomic<int64_t> shuffled_out{0};  ///< rows of shares sent to other ranks
  /// This rank's join buckets, of every query (set before the run starts).
  KeptBuckets* kept = nullptr;
  bool share_failed = false;  ///< its run thread: the end went to rank 0 as a failure
  bool lent = false;          // guarded by mu: rank 0 said other ranks' actors idle

  /// Rank 0 says another rank's actors are idle (the partitions ran out): this rank's pools
  /// may hand batches to them while its own actors are busy (ActorPool::lend_spares), now or
  /// as soon as its pools are up (lend_if_told).
  void lend() {
    std::lock_guard lock(mu);
    lent = true;
    lend_if_told_locked();
  }
  /// The run thread, once `context`'s pools are up and set: lends their spares if rank 0
  /// said so before.
  void lend_if_told() {
    std::lock_guard lock(mu);
    lend_if_told_locked();
  }
  void lend_if_told_locked() {
    if (lent && context)
      for (const auto& pool : context->pools()) pool->lend_spares();
  }

  void cancel() {
    std::vector<std::function<void()>> wake;
    {
      std::lock_guard lock(mu);
      cancelled = true;
      if (context) context->fail(std::make_exception_ptr(Cancelled("rank 0 ended the query")));
      wake.swap(waiting);
    }
    shares.cancel();
    ranges.cancel();
    for (auto& w : wake) w();
  }
  /// Takes room in the window for one more result batch to rank 0, or (false) keeps `wake` to
  /// call once rank 0 has taken one. Rank 0 takes every batch as it comes, whatever its
  /// partition, so the wake-up always comes; a cancelled run lets the batch through, and the
  /// partition then sees its query cancelled. Pipeline threads, concurrently.
  bool reserve_result(const std::function<void()>& wake) {
    std::lock_guard lock(mu);
    if (results_out >= kResultWindow && !cancelled) {
      waiting.push_back(wake);
      return false;
    }
    results_peak = std::max(results_peak, ++results_out);
    return true;
  }
  /// Rank 0 took `n` result batches (the transport's thread): the blocked partitions go on.
  void results_taken(int64_t n) {
    std::vector<std::function<void()>> wake;
    {
      std::lock_guard lock(mu);
      results_out -= n;
      wake.swap(waiting);
    }
    for (auto& w : wake) w();
  }
  bool cancelled_now() {
    std::lock_guard lock(mu);
    return cancelled;
  }
  int64_t peak() {
    std::lock_guard lock(mu);
    return results_peak;
  }
};

/// Sends each batch of a partition to rank 0 under the partition's key (waiting while
/// kResultWindow are out), then the rows its UDFs rejected (OnError::Null, Skip), then its
/// end; or, with `files`, writes the partition's part file (committed before its end is sent);
/// or, with `partials` (the pipeline's breaker, an aggregate), aggregates the partition here
/// and sends its states (Partial) before its end; rows that come once the states have reached
/// their share of the memory budget go to rank 0 as rows (sunk there after the states).
class ForwardSink final : public Sink {
 public:
  /// `uploads`: with `files`, a write to an object store, where each part goes up once
  /// committed; its upload travels with the partition's end.
  /// `exchange`: the partials' shares go to the ranks that merge them (share_exchange.h).
  /// `row_cap` >= 0: rank 0's breaker needs no more than this many rows of a partition (a
  /// limit), so each partition ends once it has sent them.
  /// `keep`: the partials stay here, each partition's combined into the state (a sort whose
  /// write is spread by key range: range_worker.h); only the partition's end goes to rank 0.
  ForwardSink(Run& run, QueryContext& context, std::unique_ptr<FileSink> files,
              PartUploads* uploads, const Sink* partials, int64_t memory_budget, uint64_t query,
              bool exchange, int64_t row_cap = -1, bool keep = false)
      : run_(run),
        context_(context),
        files_(std::move(files)),
        uploads_(uploads),
        partials_(partials),
        memory_budget_(memory_budget),
        query_(query),
        exchange_(exchange),
        row_cap_(row_cap),
        keep_(keep) {}

  struct Global final : GlobalSinkState {
    std::mutex mu;
    std::set<int> ended;  // guarded by mu
    std::unique_ptr<GlobalSinkState> files;
    std::unique_ptr<GlobalSinkState> partials;
  };
  struct Local final : LocalSinkState {
    int partition = 0;
    uint64_t key = 0;
    int64_t rows = 0;  ///< written into the part file
    int64_t sent = 0;  ///< rows sent to rank 0
    std::unique_ptr<LocalSinkState> file;
    std::unique_ptr<LocalSinkState> partial;
  };

  std::unique_ptr<GlobalSinkState> global_state(int n) const override {
    auto global = std::make_unique<Global>();
    if (files_) global->files = files_->global_state(n);
    if (partials_) {
      global->partials = partials_->global_state(n);
      global->partials->memory_budget_bytes = memory_budget_;
    }
    return global;
  }
  std::unique_ptr<LocalSinkState> local_state(GlobalSinkState& global,
                                              int partition) const override {
    auto local = std::make_unique<Local>();
    local->partition = partition;
    local->key = run_.granted.key_of(partition);
    if (files_) local->file = files_->local_state(*global.as<Global>().files, partition);
    if (partials_)
      local->partial = partials_->local_state(*global.as<Global>().partials, partition);
    return local;
  }
  bool ready(GlobalSinkState& global, LocalSinkState& local,
             const std::function<void()>& wake) const override {
    if (files_ || aggregating(global, local) || full(local)) return true;
    return run_.reserve_result(wake);  // at most kResultWindow batches out to rank 0
  }
  /// The partition has sent all the rows rank 0's breaker can use (a limit's n).
  bool full(const LocalSinkState& local) const override {
    return row_cap_ >= 0 && local.as<Local>().sent >= row_cap_;
  }
  /// Whether the partition's rows go into its partial state here, which has room for them.
  /// With an exchange, always: the state spills past its budget here, and its shares carry
  /// what it spilled (no rows travel past it).
  bool aggregating(GlobalSinkState& global, LocalSinkState& local) const {
    return partials_ &&
           (exchange_ || keep_ ||
            !partials_->partial_full(*global.as<Global>().partials, *local.as<Local>().partial));
  }
  void sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const override {
    if (files_) {
      files_->sink(*global.as<Global>().files, *local.as<Local>().file, batch);
      local.as<Local>().rows += batch.num_rows();
      return;
    }
    if (aggregating(global, local)) {
      partials_->sink(*global.as<Global>().partials, *local.as<Local>().partial, batch);
      return;
    }
    if (full(local)) return;  // no room was taken for it (ready())
    // Past a limit's n rows nothing of the partition can reach the output.
    const int64_t room = row_cap_ < 0 ? batch.num_rows() : row_cap_ - local.as<Local>().sent;
    const Batch rows = batch.num_rows() > room ? batch.slice(0, room) : batch;
    local.as<Local>().sent += rows.num_rows();
    process::MessageWriter head;
    head.begin(process::Op::Result);
    head.put(local.as<Local>().key);
    head.put(rows.num_rows());
    std::vector<std::string> names;
    for (int i = 0; i < rows.num_columns(); ++i) names.push_back(rows.schema().field(i).name);
    if (run_.cancelled_now()) throw Cancelled("rank 0 ended the query");
    run_.transport.send(0, kTagData, gather_columns(head, rows.columns(), names));
  }
  // A resumable write's checkpoints, kept by the part files' sink.
  PartitionStart start_of(const GlobalSinkState& global, int partition) const override {
    return files_ ? files_->start_of(*global.as<Global>().files, partition) : PartitionStart{};
  }
  int64_t checkpoint_rows(const GlobalSinkState& global) const override {
    return files_ ? files_->checkpoint_rows(*global.as<Global>().files) : 0;
  }
  void checkpoint(GlobalSinkState& global, LocalSinkState& local,
                  int64_t input_rows) const override {
    if (files_) files_->checkpoint(*global.as<Global>().files, *local.as<Local>().file, input_rows);
  }
  void combine(GlobalSinkState& global, LocalSinkState& local) const override {
    if (files_) files_->combine(*global.as<Global>().files, *local.as<Local>().file);
    if (partials_ && keep_)
      partials_->combine(*global.as<Global>().partials, *local.as<Local>().partial);
    else if (partials_)
      send_partial(global.as<Global>(), local.as<Local>());
    send_rejected(local.as<Local>());
    process::MessageWriter out;
    out.begin(process::Op::Stop);
    out.put(local.as<Local>().key);
    if (files_) {
      out.put(local.as<Local>().rows);  // rank 0 journals the committed part
      out.put(static_cast<uint8_t>(uploads_ != nullptr));
      // Up before the end is sent: rank 0 completes it at commit.
      if (uploads_)
        put_uploaded(out, uploads_->take(files_->part_name(local.as<Local>().partition)));
    }
    run_.transport.send(0, kTagData, MessageBuffer(out.bytes()));
    std::lock_guard lock(global.as<Global>().mu);
    global.as<Global>().ended.insert(local.as<Local>().partition);
  }
  /// The partition's aggregate states: rank 0 merges them as its own partitions'.
  /// With an exchange, its share 0 only (its rows after the bytes); the other shares go to
  /// their ranks, this rank's own through the transport too.
  void send_partial(Global& global, Local& local) const {
    process::MessageWriter out;
    out.begin(process::Op::Partial);
    out.put(local.key);
    std::vector<Sink::Share> shares;
    if (exchange_) {
      shares = partials_->encode_partial_shares(*global.partials, *local.partial,
                                                run_.transport.ranks());
      out.put_string(shares.at(0).bytes);
      out.put(shares[0].rows);
    } else {
      out.put_string(partials_->encode_partial(*global.partials, *local.partial));
    }
    local.partial.reset();
    if (run_.cancelled_now()) throw Cancelled("rank 0 ended the query");
    if (exchange_) {
      run_.shuffled_out += shares[0].rows + send_shares(run_.transport, query_, local.partition,
                                                        shares, run_.transport.rank());
    }
    run_.transport.send(0, kTagData, MessageBuffer(out.bytes()));
  }
  /// The rows each pool's UDF rejected in the partition, and each url_download's, by chunk:
  /// rank 0 gathers every rank's in input order (QueryResult::rejected) and counts them
  /// against max_failed_rows. A download's is sent as step -1 - its number.
  void send_rejected(const Local& local) const {
    for (size_t i = 0; i < context_.pools().size(); ++i)
      send_rejected(local, static_cast<int32_t>(i), context_.rejected(static_cast<int>(i)));
    for (size_t d = 0; d < context_.downloads(); ++d)
      send_rejected(local, -1 - static_cast<int32_t>(d),
                    context_.download_rejected(static_cast<int>(d)));
  }
  void send_rejected(const Local& local, int32_t step, RejectedRows& rejected) const {
    for (auto& [chunk, rows] : rejected.take_partition(local.partition)) {
      process::MessageWriter head;
      head.begin(process::Op::Rejected);
      head.put(local.key);
      head.put(step);
      head.put(chunk);
      head.put(rows.num_rows());
      std::vector<std::string> names;
      for (int c = 0; c < rows.num_columns(); ++c) names.push_back(rows.schema().field(c).name);
      run_.transport.send(0, kTagData, gather_columns(head, rows.columns(), names));
    }
  }
  /// The bytes of the part files written here.
  int64_t bytes_written(GlobalSinkState& global) const {
    return files_ ? files_->bytes_written(*global.as<Global>().files) : 0;
  }

 private:
  Run& run_;
  QueryContext& context_;
  std::unique_ptr<FileSink> files_;
  PartUploads* uploads_;
  const Sink* partials_;
  int64_t memory_budget_;
  uint64_t query_;
  bool exchange_;
  int64_t row_cap_;
  bool keep_;
};

}  // namespace ember::dist
