// The probe side of a hash join: each batch of the left input looks its keys up in the built
// table and comes out joined, so the left side streams and never materialises.
#pragma once

#include <memory>

#include "exec/relational/join_hash_table.h"
#include "exec/relational/join_layout.h"
#include "exec/relational/join_spill.h"
#include "exec/streaming_operator.h"

namespace ember {

class JoinProbeOperator final : public StreamingOperator {
 public:
  /// `spill`: where the build side went past the budget (null: it never spills).
  JoinProbeOperator(std::shared_ptr<const JoinHashTable> table, JoinLayout layout,
                    std::shared_ptr<JoinSpill> spill = nullptr)
      : table_(std::move(table)), layout_(std::move(layout)), spill_(std::move(spill)) {}
  /// Joined rows in probe order, matches in build order. Marks matched build rows for right
  /// and full joins. Any pipeline thread, concurrently. When the build side spilled, rows with
  /// a key go to the spill instead (GraceJoinSource joins them later), and only rows with a
  /// null key, which match nothing, come out now.
  Batch execute(const Batch& input) const override;

 private:
  Batch probe(const Batch& input) const;

  std::shared_ptr<const JoinHashTable> table_;
  JoinLayout layout_;
  std::shared_ptr<JoinSpill> spill_;
};

}  // namespace ember
