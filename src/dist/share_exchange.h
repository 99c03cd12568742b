// The hash exchange of a breaker's partial states (Sink::exchanges_partials): when a partition
// ends, on whichever rank ran it, its state is split into one share per rank (by key), and
// share q goes to rank q, which merges every partition's share q and finalizes it. Rank 0 then
// merges the ranks' finalized shares (PipelineBreaker::finalize_shares).
//   rank -> rank q > 0 (kTagQuery): Partial (query, partition, rows, the share's bytes)
//   rank -> rank 0: its partitions' share 0 travels as the partition's Partial (rows after the
//                   bytes), before the partition's end (partition_worker.h)
//   rank q > 0 -> rank 0 (kTagData, under its done key), once every partition's share q came
//                   (each adopted as it came) and the rank's own partitions have ended:
//                   Result (rows, columns) per batch of its finalized share, then its Ready
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

#include "dist/transport.h"
#include "exec/sink.h"
#include "udf/process/wire_message.h"

namespace ember::dist {

/// A share for rank q > 0 (kTagQuery), of `partition` of query `query`: sent from the share's
/// own bytes, which the message keeps until it has left.
GatherMessage share_message(uint64_t query, int partition, Sink::Share share);

/// Sends shares 1.. of `partition` to their ranks (moving their bytes out; share 0 is left to
/// the caller); returns the rows sent to ranks other than `self`.
int64_t send_shares(Transport& transport, uint64_t query, int partition,
                    std::vector<Sink::Share>& shares, int self);

/// The shares a worker rank receives for one query, from any rank, as they come (the
/// transport's thread), until its merge takes them (as they come too, on a thread of its own).
class ShareInbox {
 public:
  struct Piece {
    int source = 0;  ///< the rank that sent it
    int partition = 0;
    int64_t rows = 0;
    Incoming message;  ///< holds the share's bytes where they arrived
    size_t offset = 0, size = 0;
    std::string_view bytes() const { return message.bytes().substr(offset, size); }
  };
  /// A share `message`, which `in` reads (after its op and query were read).
  void take(Incoming&& message, process::MessageReader& in);
  /// Waits for the next share; nullopt once the query was cancelled.
  std::optional<Piece> next();
  /// The query ended early: next() returns nullopt from now on. Idempotent.
  void cancel();

 private:
  std::mutex mu_;
  std::condition_variable arrived_;
  std::deque<Piece> pieces_;  // guarded by mu_
  bool cancelled_ = false;    // guarded by mu_
};

/// Rank 0's own partitions of a pipeline whose breaker exchanges its states: a partition's
/// state, at its end, is split into the ranks' shares; rank 0's share goes into the breaker's
/// state as a share from another rank would, and the others go to their ranks. The other
/// calls go to the breaker, whose global state this sink uses.
class SharingSink final : public Sink {
 public:
  SharingSink(const Sink& inner, Transport& transport, uint64_t query)
      : inner_(inner), transport_(transport), query_(query) {}

  std::unique_ptr<GlobalSinkState> global_state(int num_partitions) const override {
    return inner_.global_state(num_partitions);
  }
  std::unique_ptr<LocalSinkState> local_state(GlobalSinkState& global,
                                              int partition) const override;
  bool ready(GlobalSinkState& global, LocalSinkState& local,
             const std::function<void()>& wake) const override;
  void sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const override;
  void combine(GlobalSinkState& global, LocalSinkState& local) const override;
  bool satisfied(const GlobalSinkState& global) const override { return inner_.satisfied(global); }

  /// Rows sent to the other ranks so far.
  int64_t rows_sent() const { return sent_.load(std::memory_order_relaxed); }

 private:
  const Sink& inner_;
  Transport& transport_;
  uint64_t query_;
  mutable std::atomic<int64_t> sent_{0};
};

}  // namespace ember::dist
