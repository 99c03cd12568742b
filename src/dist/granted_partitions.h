// A worker rank's supply of a query's partitions: those rank 0 handed it, and the requests for
// more it sends as its pipeline takes them (the partition protocol in partition_worker.h).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>

#include "dist/transport.h"
#include "exec/partition_supply.h"
#include "udf/process/wire_message.h"

namespace ember::dist {

/// The partitions rank 0 handed this rank for one query (Grant: the first with the order, the
/// rest in answer to this rank's requests), as its pipeline takes them. It asks rank 0 for more
/// (Want) before it runs out, one request at a time, and says Later while none is at hand; a
/// Grant saying that none are left exhausts it.
class GrantedPartitions final : public PartitionSupply {
 public:
  /// `done_key`: the query's key for this rank's requests, progress and end, which go to rank 0
  /// through `transport`.
  GrantedPartitions(Transport& transport, uint64_t done_key)
      : transport_(transport), done_key_(done_key) {}

  SuppliedPartition take() override;
  void set_waker(std::function<void()> wake) override;
  /// The next partition in hand: handed to this rank, so it runs here.
  int peek() override;

  /// A Grant from rank 0 (the transport's thread): its partitions join those in hand, and a
  /// pipeline waiting for one is woken here.
  void granted(process::MessageReader& in);
  /// The key rank 0 gave partition `p` (handed to this rank) for its rows and its end.
  uint64_t key_of(int p);
  /// Once the pipeline has ended: asks for nothing more, and returns every partition handed to
  /// this rank so far with its key, so that each gets its end.
  std::map<int, uint64_t> settle();
  /// After settle(), and after the ends of what it returned have gone to rank 0: waits for the
  /// answer to a request still on its way, and returns what it handed over (every partition
  /// handed to this rank but those settle() returned). Rank 0 answers every request until this
  /// rank has ended, at once once the query has failed or ended (which the ends sent after
  /// settle() let it see), and sends the first Grant with the order; a silent rank 0 ends the
  /// job.
  std::map<int, uint64_t> settle_late(const std::map<int, uint64_t>& settled);

 private:
  /// Asks rank 0 for enough to start a waiting partition and keep kPartitionsInHand (mu_ held).
  void ask();

  Transport& transport_;
  const uint64_t done_key_;
  std::mutex mu_;
  std::condition_variable answered_;  // a Grant came
  std::deque<int> ready_;             // guarded by mu_: handed, not started, ascending
  std::map<int, uint64_t> keys_;      // guarded by mu_: every partition handed -> its key
  bool asked_ = true;                 // guarded by mu_: a Grant is on its way (the first is)
  bool exhausted_ = false;            // guarded by mu_: rank 0 has none left
  bool waiting_ = false;              // guarded by mu_: take() said Later
  bool settled_ = false;              // guarded by mu_: the pipeline has ended
  SupplyWaker waker_;                 // guarded by mu_
};

}  // namespace ember::dist
