// A source of batches for one partition (a file, a byte range of a file, a range).
#pragma once

#include <optional>

#include "ember/batch.h"

namespace ember {

/// Produces one partition's batches in order. Called by one thread at a time.
class BatchReader {
 public:
  virtual ~BatchReader() = default;
  /// The next batch (at most the requested batch rows), or nullopt at the end. Throws
  /// ParseError / IoError naming file, line and column.
  virtual std::optional<Batch> next() = 0;
};

}  // namespace ember
