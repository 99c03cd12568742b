// A stable k-way merge of sorted runs that streams: each run is read a chunk at a time (a
// spilled run from its file), so an external sort's output never has to fit in memory.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/batch_reader.h"
#include "exec/relational/row_order.h"
#include "exec/relational/sorted_run.h"

namespace ember {

/// One sorted run, a chunk at a time: consecutive pieces of it, in order.
class RunChunks {
 public:
  virtual ~RunChunks() = default;
  /// The run's next chunk (rows with their key columns), or none past its end.
  virtual std::optional<SortedRun> next() = 0;
};

/// A run held in memory: one chunk.
class RunInMemory final : public RunChunks {
 public:
  explicit RunInMemory(SortedRun run) : run_(std::move(run)) {}
  std::optional<SortedRun> next() override {
    if (given_) return std::nullopt;
    given_ = true;
    return std::move(run_);
  }

 private:
  SortedRun run_;
  bool given_ = false;
};

/// Batches of the rows of every run in key order; ties go to the earlier run, then the earlier
/// row, so runs given in input order make the merge stable. Holds one chunk per run at a time.
class RunMergeReader final : public BatchReader {
 public:
  RunMergeReader(std::vector<std::unique_ptr<RunChunks>> runs, std::vector<KeyOrder> order,
                 int64_t batch_rows);
  std::optional<Batch> next() override;

 private:
  struct Cursor {
    SortedRun chunk;
    int64_t row = 0;
    std::vector<uint64_t> words;  ///< row-major order words, empty when the keys have none
  };
  /// Loads run r's next chunk; false at the run's end.
  bool load(size_t r);
  /// Whether run a's current row comes after run b's.
  bool after(size_t a, size_t b) const;
  void push(size_t r);
  size_t pop();

  std::vector<std::unique_ptr<RunChunks>> runs_;
  std::vector<KeyOrder> order_;
  int64_t batch_rows_;
  std::vector<Cursor> cursors_;
  std::vector<size_t> heap_;  ///< runs with rows left, a binary heap by after()
  bool started_ = false;
};

}  // namespace ember
