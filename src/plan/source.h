// A partitioned scan source: what a logical Source node reads, and how it is opened.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/batch_reader.h"
#include "ember/types.h"

namespace ember {

/// A source of rows split into partitions. Immutable and shareable between queries; open()
/// may be called from any thread, concurrently for different partitions.
class Source {
 public:
  virtual ~Source() = default;
  virtual const Schema& schema() const = 0;
  virtual int num_partitions() const = 0;
  /// A reader of partition `p` producing batches of at most `batch_rows` rows.
  virtual std::unique_ptr<BatchReader> open(int p, int64_t batch_rows) const = 0;
  /// One line for explain(), e.g. "CsvScan data/*.csv (12 files, 14 partitions)".
  virtual std::string describe() const = 0;
  /// The files this source reads, as it names them; none for a source in memory. Lets a write
  /// refuse to replace a directory that its own query reads.
  virtual std::vector<std::string> files() const { return {}; }
};

}  // namespace ember
