// The output sink of a query that writes files: one file per partition in a directory.
#pragma once

#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>

#include "exec/output_sink.h"
#include "io/output/output_journal.h"
#include "io/output/part_uploads.h"
#include "io/output/partition_writer.h"

namespace ember {

/// A resumable write's journal, as the file sink uses it: what earlier runs finished (kept),
/// and where each piece it finishes is recorded.
struct PieceJournal {
  /// What earlier runs finished, by partition (OutputJournal::recovered, or, on another rank of
  /// the MPI runner, what rank 0 sent of it). Outlives the sink.
  const std::map<int, JournalPartition>* recovered = nullptr;
  /// Records a committed piece durably (OutputJournal::append), or hands it to what does (on
  /// another rank: a message to rank 0, which journals it). Any thread.
  std::function<void(const JournalPiece&)> append;
  /// Rows a partition reads between checkpoints, each a piece file of its own
  /// (piece_file_name); 0: one piece per partition, its part_file_name.
  int64_t checkpoint_rows = 0;
  /// Partitions from this one on (a join's spilled key ranges, joined once the probe side has
  /// ended) are neither kept nor journaled: their rows depend on which partitions the run
  /// computed.
  int kept_below = std::numeric_limits<int>::max();
  /// False when what this run writes must not be kept by a later one (a join's build side
  /// spilled: the probe partitions' keyed rows then come out in the spilled ranges, not in
  /// their own pieces); null: always true. Read as each piece is committed, once the builds
  /// have ended.
  std::function<bool()> journals;
};

/// Writes partition p to `part-<p>.<ext>` in `dir`, the query's staging directory; a part is
/// committed (renamed into place) when its partition ends. finalize() throws unless every
/// partition's part was written, so that the query commits only a complete set.
///
/// With a PieceJournal (a resumable write), each piece is journaled once it is committed; a
/// partition an earlier run finished runs nothing (its pieces count as written), and one it
/// checkpointed starts after its last checkpoint, writing the pieces that follow.
class FileSink final : public OutputSink {
 public:
  /// InvalidArgument, before any work runs, when the format cannot hold a column's type.
  FileSink(std::string dir, Schema schema, FileFormat format, FileWriteOptions options = {},
           std::optional<PieceJournal> pieces = std::nullopt)
      : dir_(std::move(dir)),
        schema_(std::move(schema)),
        format_(format),
        options_(options),
        pieces_(pieces) {
    check_format_holds(schema_, format_);
  }
  std::unique_ptr<GlobalSinkState> global_state(int num_partitions) const override;
  std::unique_ptr<LocalSinkState> local_state(GlobalSinkState& global,
                                              int partition) const override;
  void sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const override;
  void combine(GlobalSinkState& global, LocalSinkState& local) const override;
  PartitionStart start_of(const GlobalSinkState& global, int partition) const override;
  int64_t checkpoint_rows(const GlobalSinkState& global) const override;
  /// Commits the partition's open piece and journals it.
  void checkpoint(GlobalSinkState& global, LocalSinkState& local,
                  int64_t input_rows) const override;
  /// One partition's part was written and committed into the directory by another rank (the
  /// MPI runner): it counts as written here.
  void adopt_part(GlobalSinkState& global) const;
  /// With a PieceJournal: journals `partition`'s part file, of `rows` rows, which another rank
  /// committed into the directory (its size read there). Throws IoError. Any thread.
  void journal_adopted(int partition, int64_t rows) const;
  /// The bytes of the parts committed here (not those adopted).
  int64_t bytes_written(const GlobalSinkState& global) const override;
  /// A table with no rows.
  Table finalize(GlobalSinkState& global) const override;
  /// The name of partition `partition`'s part file (without checkpoints).
  std::string part_name(int partition) const { return part_file_name(partition, format_); }
  /// Hands each part, once committed, to `uploads` (a write to an object store), which uploads
  /// it while the query goes on. Before the query runs.
  void upload_parts_to(PartUploads* uploads) { uploads_ = uploads; }

 private:
  struct PartWriter;  ///< a partition's state
  /// Opens the partition's next piece (its only one without checkpoints).
  void open_piece(PartWriter& part) const;
  /// Commits the open piece, if any, and journals it (or only the progress, with no rows)
  /// unless the PieceJournal says this partition or this run keeps nothing.
  void journal_piece(GlobalSinkState& global, PartWriter& part, bool last) const;

  std::string dir_;
  Schema schema_;
  FileFormat format_;
  FileWriteOptions options_;
  std::optional<PieceJournal> pieces_;
  PartUploads* uploads_ = nullptr;
};

}  // namespace ember
