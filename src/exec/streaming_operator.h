// The role of an operator that transforms each batch on its own, inline on a pipeline thread.
#pragma once

#include "ember/batch.h"

namespace ember {

/// A per-batch transform (a projection, a filter). Plain data made by the physical planner;
/// it keeps no state, so one instance serves every partition.
class StreamingOperator {
 public:
  virtual ~StreamingOperator() = default;
  /// The output for one input batch (possibly with no rows). Pure: called from any pipeline
  /// thread, concurrently for different partitions.
  virtual Batch execute(const Batch& input) const = 0;
};

}  // namespace ember
