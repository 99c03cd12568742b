// The end of a right or full join's probe pipeline: passes the joined rows on and adds, once
// every probe partition has ended, the build rows that nothing matched.
#pragma once

#include <memory>

#include "exec/pipeline_breaker.h"
#include "exec/relational/join_hash_table.h"
#include "exec/relational/join_layout.h"

namespace ember {

class JoinTailSink final : public PipelineBreaker {
 public:
  JoinTailSink(std::shared_ptr<const JoinHashTable> table, JoinLayout layout)
      : table_(std::move(table)), layout_(std::move(layout)) {}
  std::unique_ptr<GlobalSinkState> global_state(int num_partitions) const override;
  std::unique_ptr<LocalSinkState> local_state(GlobalSinkState& global,
                                              int partition) const override;
  void sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const override;
  void combine(GlobalSinkState& global, LocalSinkState& local) const override;
  /// The probe partitions as they were, then one partition of unmatched build rows (left
  /// columns null except the keys, which take the build row's values).
  std::shared_ptr<const Source> finalize(GlobalSinkState& global) const override;

 private:
  std::shared_ptr<const JoinHashTable> table_;
  JoinLayout layout_;
};

}  // namespace ember
