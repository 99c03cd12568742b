// One rank's share of a join the cluster runs as a hash exchange of both sides: partition p is
// bucket p / ranks of rank p % ranks, which only that rank holds (ShuffleSink), joined there as
// one machine joins (every join type; its build spills past the memory budget).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ember/join_type.h"
#include "exec/sinks/shuffle_sink.h"
#include "plan/source.h"

namespace ember {

/// What a join is, apart from its inputs: enough to join two buckets as the query would.
struct JoinShape {
  std::vector<std::string> on;
  JoinType type = JoinType::Inner;
  std::map<std::string, std::string> right_columns;  ///< output name -> right input name
  Schema left, right, output;
};

class BucketJoinSource final : public Source {
 public:
  /// `left`/`right`: this rank's buckets of each side (filled once both exchanges ended);
  /// `memory_budget`: what one bucket's join may hold before it spills (0: no limit).
  BucketJoinSource(JoinShape join, std::shared_ptr<const JoinBuckets> left,
                   std::shared_ptr<const JoinBuckets> right, int ranks, int rank, int per_rank,
                   int64_t memory_budget);
  const Schema& schema() const override { return join_.output; }
  int num_partitions() const override { return ranks_ * per_rank_; }
  int home_rank(int p) const override { return p % ranks_; }
  /// Joins the bucket (the whole of it, before its first row); Error on another rank's.
  std::unique_ptr<BatchReader> open(int p, int64_t batch_rows) const override;
  std::string describe() const override;
  void accept(SourceVisitor& v) const override { v.visit_intermediate(*this); }
  const JoinShape& join() const { return join_; }

 private:
  JoinShape join_;
  std::shared_ptr<const JoinBuckets> left_, right_;
  int ranks_, rank_, per_rank_;
  int64_t memory_budget_;
};

}  // namespace ember
