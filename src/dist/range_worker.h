// A worker rank's part of a write spread by key range (SpreadRun::writes_ranges): once its
// share of the exchanged groups is finalized (or its partitions of a sort have ended, sorted),
// it waits for rank 0's splitters, sends each rank its rows of that rank's range, gathers the
// other ranks' rows of its own range and writes it through the pipeline after the breaker as
// the output's part `rank`.
//   rank 0 -> rank (kTagQuery): Splitters (query, -1, rows, the splitter keys as one run)
//   rank -> rank q > 0 (kTagQuery): Range (query, sender, rows, its runs cut to range q)
//   rank -> rank 0 (kTagData):      Range (done key, sender, rows, its runs cut to range 0); for an
//                                   object store, once its part is up, Stop (done key, upload)
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dist/partition_run.h"
#include "exec/physical_plan.h"
#include "exec/pipeline_breaker.h"
#include "io/output/partition_writer.h"

namespace ember::dist {

/// Where a rank writes its range, and the keys its messages travel under.
struct RangeTarget {
  uint64_t query = 0;
  uint64_t done_key = 0;
  std::string dir;  ///< the query's staging directory (shared storage)
  FileFormat format = FileFormat::Csv;
  FileWriteOptions options;
  /// A write to an object store: its s3:// prefix and storage. The part is then written into a
  /// local staging directory of this rank's and uploaded, not completed; the upload goes to
  /// rank 0 (Stop under the done key, before the rank's end), which completes it at commit.
  std::string object_store;
  StorageOptions storage;
};

/// What a rank's range write did.
struct RangeWritten {
  int64_t rows = 0;      ///< rows written into its part
  int64_t bytes = 0;     ///< the part's bytes
  int64_t rows_out = 0;  ///< rows of its share sent to other ranks' ranges
  int64_t rows_in = 0;   ///< rows of its range from other ranks
};

/// `runs`: this rank's rows of pipeline `at`'s breaker (PipelineBreaker::key_runs), of
/// `physical` (the decoded chain, the pipeline after the breaker its last). Throws Cancelled
/// once the query ends early; a failed write throws its error.
RangeWritten write_key_range(Run& run, const RangeTarget& target, const PhysicalPlan& physical,
                             size_t at, std::vector<TaggedRun> runs, int threads);

/// Runs as a Range or Splitters message carries them: each run's tag and columns.
std::string encode_runs(const std::vector<TaggedRun>& runs);
/// The runs encode_runs() wrote, rows of `schema`. Error when they are not.
std::vector<TaggedRun> decode_runs(std::string_view bytes, const Schema& schema);
/// A Splitters or Range message: `key` (the query's id to a worker rank, the sender's done key
/// to rank 0), the sender's rank (-1 for splitters) and `runs`.
std::string range_message(process::Op op, uint64_t key, int32_t from,
                          const std::vector<TaggedRun>& runs);
/// The rows of every run.
int64_t rows_of(const std::vector<TaggedRun>& runs);

}  // namespace ember::dist
