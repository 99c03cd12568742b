// The end of a right or full join's probe pipeline: passes the joined rows on and adds, once
// every probe partition has ended, the build rows that nothing matched.
#pragma once

#include <memory>
#include <string>
#include <string_view>

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
  /// Under the cluster runner every rank probes its own copy of the build side: a partition
  /// run on another rank sends its rows (partial_full() from the start) and, as its partial
  /// state, the build rows that rank's probes matched since its last partition ended, which
  /// this rank marks matched in its own table before finalize().
  bool ships_partials() const override { return true; }
  bool partial_full(GlobalSinkState&, LocalSinkState&) const override { return true; }
  std::string encode_partial(GlobalSinkState& global, LocalSinkState& local) const override;
  void adopt_partial(GlobalSinkState& global, LocalSinkState& local,
                     std::string_view bytes) const override;
  std::string partials_summary() const override { return "rows and the right rows they matched"; }
  /// The probe partitions as they were, then one partition of unmatched build rows (left
  /// columns null except the keys, which take the build row's values).
  std::shared_ptr<const Source> finalize(GlobalSinkState& global) const override;

 private:
  std::shared_ptr<const JoinHashTable> table_;
  JoinLayout layout_;
};

}  // namespace ember
