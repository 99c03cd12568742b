// The probe side of a hash join: each batch of the left input looks its keys up in the built
// table and comes out joined, so the left side streams and never materialises.
#pragma once

#include <memory>

#include "exec/relational/join_hash_table.h"
#include "exec/relational/join_layout.h"
#include "exec/streaming_operator.h"

namespace ember {

class JoinProbeOperator final : public StreamingOperator {
 public:
  JoinProbeOperator(std::shared_ptr<const JoinHashTable> table, JoinLayout layout)
      : table_(std::move(table)), layout_(std::move(layout)) {}
  /// Joined rows in probe order, matches in build order. Marks matched build rows for right
  /// and full joins. Any pipeline thread, concurrently.
  Batch execute(const Batch& input) const override;

 private:
  std::shared_ptr<const JoinHashTable> table_;
  JoinLayout layout_;
};

}  // namespace ember
