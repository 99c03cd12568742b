// A source of batches for one partition (a file, a byte range of a file, a range).
#pragma once

#include <optional>

#include "ember/batch.h"

namespace ember {

/// What a source fetched ahead for one of its partitions (Source::prefetch), handed to the
/// reader of that partition when it opens. Destroying it waits for a fetch still under way.
class Prefetched {
 public:
  virtual ~Prefetched() = default;
};

/// Produces one partition's batches in order. Called by one thread at a time.
class BatchReader {
 public:
  virtual ~BatchReader() = default;
  /// The next batch (at most the requested batch rows), or nullopt at the end. Throws
  /// ParseError / IoError naming file, line and column.
  virtual std::optional<Batch> next() = 0;
  /// Rows read from the input so far but dropped before a batch (by a filter applied while
  /// reading), so that progress and statistics count every row the input had.
  virtual int64_t rows_dropped() const { return 0; }
  /// Bytes of the input's files read so far for this partition (none for a source in memory),
  /// so that a query can tell how much each rank of a cluster read.
  virtual int64_t bytes_read() const { return 0; }
};

}  // namespace ember
