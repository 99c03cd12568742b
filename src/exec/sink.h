// Where a pipeline's partitions end: collected in memory, written to files, or limited.
#pragma once

#include <memory>

#include "ember/batch.h"

namespace ember {

/// Receives one partition's batches in order. Used by one thread at a time.
class PartitionSink {
 public:
  virtual ~PartitionSink() = default;
  virtual void consume(const Batch& batch) = 0;
  /// The partition's input ended normally. Not called when the query fails or stops early.
  virtual void finish() = 0;
  /// True when this partition needs no more rows (a limit was reached); its driver stops.
  virtual bool full() const { return false; }
};

/// A pipeline's sink: one PartitionSink per partition. Thread-safe.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual std::unique_ptr<PartitionSink> open(int partition) = 0;
  /// True when the whole pipeline needs no more input (a global limit was met).
  virtual bool satisfied() const { return false; }
};

}  // namespace ember
