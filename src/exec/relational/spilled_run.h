// A sorted run on disk: written in chunks of about 1 MiB, so that a merge can read it back one
// chunk at a time.
#pragma once

#include <memory>
#include <vector>

#include "exec/relational/run_merge.h"
#include "exec/relational/sorted_run.h"
#include "exec/relational/spill_file.h"

namespace ember {

/// About how many bytes of a spilled run a merge holds at once.
inline constexpr int64_t kSpilledChunkBytes = int64_t{1} << 20;

/// A sorted run in a spill file of its own, its key columns after its rows' in every chunk.
/// The file is removed once the run has been read to its end, or when this is destroyed.
class SpilledRun {
 public:
  /// Writes `run` to a new spill file. IoError when the disk refuses it.
  static SpilledRun write(const SortedRun& run);
  /// The run's chunks in order, as rows of `schema` (the schema it was written with) and keys.
  /// Takes the file: call once.
  std::unique_ptr<RunChunks> read(const Schema& schema);

 private:
  std::unique_ptr<SpillFile> file_;
  std::vector<DataType> types_;
};

}  // namespace ember
