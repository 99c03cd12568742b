// The breaker that ends each side of a join the cluster runs as a hash exchange of both sides
// (docs/cluster.md): when a partition ends, on whichever rank ran it, its rows are split by the
// hash of the join keys into one share per rank (and a few buckets within each share), share q
// goes to rank q, and every rank keeps its buckets' rows of both sides for the join of its own
// buckets (BucketJoinSource). Equal keys hash alike on both sides, so a key's rows meet in one
// bucket.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "exec/pipeline_breaker.h"
#include "exec/relational/spill_file.h"

namespace ember {

/// The rows of one side of a join that one rank holds once its exchange has ended, per bucket
/// of its own: those kept in memory (in partition order), then those that came once the side's
/// buckets had passed their share of the memory budget (on disk, in the order they came).
/// Filled by ShuffleSink::finalize; read by BucketJoinSource, one reader per bucket.
class JoinBuckets {
 public:
  /// Once, when the side's exchange has ended here: per bucket, its rows in memory and its
  /// spill file (null when none of its rows went to disk).
  void fill(std::vector<std::vector<Batch>> buckets,
            std::vector<std::shared_ptr<SpillFile>> spilled);
  /// Bucket `k`'s rows, as a source of one partition read once at a time (none before fill()).
  std::shared_ptr<const Source> bucket(int k, const Schema& schema) const;

 private:
  mutable std::mutex mu_;
  std::vector<std::vector<Batch>> buckets_;          // guarded by mu_
  std::vector<std::shared_ptr<SpillFile>> spilled_;  // guarded by mu_
};

/// The bucket of `buckets` that a key hash falls into (rank `b % ranks`, its bucket
/// `b / ranks`): bits of the hash other than those a join's hash table and its grace partitions
/// use, so that one bucket's keys still spread over those.
int join_bucket(uint64_t hash, int buckets);

class ShuffleSink final : public PipelineBreaker {
 public:
  /// `keys`: the join key columns of `schema`, the side's rows; `per_rank`: buckets per rank;
  /// `kept`: where finalize() leaves this rank's buckets.
  ShuffleSink(std::vector<int> keys, Schema schema, int per_rank,
              std::shared_ptr<JoinBuckets> kept);

  std::unique_ptr<GlobalSinkState> global_state(int num_partitions) const override;
  std::unique_ptr<LocalSinkState> local_state(GlobalSinkState& global,
                                              int partition) const override;
  void sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const override;
  /// A partition whose rows were sunk here without an exchange (one rank) keeps them all,
  /// bucketed as for one rank. Past half the memory budget (the other half is the other
  /// side's) its buckets' rows go to disk.
  void combine(GlobalSinkState& global, LocalSinkState& local) const override;
  bool ships_partials() const override { return true; }
  bool exchanges_partials() const override { return true; }
  std::string partials_summary() const override { return "rows, by the join keys' hash"; }
  /// Share q: the partition's rows whose keys hash to rank q's buckets, bucket by bucket.
  std::vector<Share> encode_partial_shares(GlobalSinkState& global, LocalSinkState& local,
                                           int shares) const override;
  void adopt_partial(GlobalSinkState& global, LocalSinkState& local,
                     std::string_view bytes) const override;
  /// Leaves this rank's buckets in `kept` and returns no rows: the join reads them from there.
  std::shared_ptr<const Source> finalize(GlobalSinkState& global) const override;
  /// As finalize(): the other ranks keep their buckets (`others` holds no rows).
  std::shared_ptr<const Source> finalize_shares(GlobalSinkState& global,
                                                std::vector<Batch> others) const override;

  int buckets_per_rank() const { return per_rank_; }

 private:
  /// The rows of `parts` cut by bucket: `out[q][k]` holds the rows of rank q's bucket k, in
  /// the parts' order.
  std::vector<std::vector<Batch>> split(const std::vector<Batch>& parts, int ranks) const;

  std::vector<int> keys_;
  Schema schema_;
  int per_rank_;
  std::shared_ptr<JoinBuckets> kept_;
};

}  // namespace ember
