// The journal of a resumable write: which query writes the staging directory beside it, and
// which pieces of its output are finished and durable, so that a rerun after the process died
// keeps them. The format is described in docs/design/write_protocol.md.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ember {

/// What makes two runs the same query: ordered (what, value) pairs, e.g. ("optimized plan",
/// a hash of its text), ("input data/a.parquet", its size and modification time). A journal
/// is taken over only by a run whose identity is equal, field by field.
struct JournalIdentity {
  std::vector<std::pair<std::string, std::string>> fields;
};

/// One finished piece of a partition's output: a part file in the staging directory (fsynced
/// and renamed into place before it is journaled), or only progress (no file: no rows).
struct JournalPiece {
  int partition = 0;
  int64_t input_end = 0;  ///< rows of the partition's input consumed up to the piece's end
  int64_t rows = 0;       ///< output rows in the piece
  int64_t bytes = 0;      ///< size of its file
  std::string file;       ///< its file's name in the staging directory; empty: none
  bool last = false;      ///< the partition's last piece: the partition is finished
};

/// The saved output of the breaker that feeds the pipeline ending in the write (a query with a
/// group-by, sort, ...): one Arrow IPC file in the staging directory (fsynced and renamed into
/// place before it is journaled) whose record batches are that pipeline's partitions in order,
/// `batches[p]` of them for partition p. A rerun reads it instead of computing it again.
struct JournalBreakerResult {
  std::string file;  ///< its name in the staging directory
  int64_t bytes = 0;
  int64_t rows = 0;
  std::vector<int64_t> batches;  ///< per partition: its record batches in the file
};

/// What earlier runs finished of one partition, in order.
struct JournalPartition {
  std::vector<JournalPiece> pieces;
  bool finished = false;
  int64_t input_end() const { return pieces.empty() ? 0 : pieces.back().input_end; }
  int64_t rows() const;
};

/// The journal `<staging>.journal` of the staging directory `<staging>` of a resumable write,
/// held open (and the staging directory locked) from open() to destruction.
///
/// Threads: open and remove on the query's driver thread; append from any thread (serialized).
class OutputJournal {
 public:
  /// Locks `staging_dir` (flock: the kernel releases it when this process dies, however it
  /// dies): IoError at once, naming `target`, when another live process holds it. Then takes
  /// over the journal left by an earlier run of the same `identity`, or starts a new one: when
  /// there is none, when `staging_existed` is false or the directory holds `_SUCCESS` (it was
  /// committed: the journal is stale), or with `discard` when it is another query's. Without
  /// `discard`, another query's journal is InvalidArgument naming what differs, and one that
  /// cannot be read back exactly (bad checksum, cut short, a piece file missing or of another
  /// size) is IoError naming the file; never guessed at (with `discard`, both start over). Removes
  /// from the staging directory every file the journal does not name (the pieces a killed run had
  /// not journaled). Without `keep_pieces` the same query's journal starts over too (its pieces are
  /// not reproducible), after the identity check.
  static OutputJournal open(const std::string& target, const std::string& staging_dir,
                            bool staging_existed, const JournalIdentity& identity, bool discard,
                            bool keep_pieces = true);

  OutputJournal(OutputJournal&& other) noexcept;
  OutputJournal& operator=(OutputJournal&&) = delete;
  OutputJournal(const OutputJournal&) = delete;
  OutputJournal& operator=(const OutputJournal&) = delete;
  /// Unlocks; the journal stays for the next run unless remove() was called.
  ~OutputJournal();

  /// What earlier runs finished, by partition (empty for a new journal).
  const std::map<int, JournalPartition>& recovered() const { return recovered_; }
  /// The breaker result an earlier run saved (none for a new journal).
  const std::optional<JournalBreakerResult>& breaker_result() const { return breaker_result_; }
  /// Records a finished piece durably (written and fsynced before it returns): its file must
  /// already be durable in the staging directory. Throws IoError. Any thread.
  void append(const JournalPiece& piece);
  /// Records the saved breaker result durably, as append() does: its file must already be
  /// durable in the staging directory, and no piece journaled yet. Throws IoError.
  void append(const JournalBreakerResult& result);
  /// Deletes the journal (after the write committed). Never throws.
  void remove() noexcept;

  const std::string& path() const { return path_; }

 private:
  OutputJournal(std::string path, int lock_fd) : path_(std::move(path)), lock_fd_(lock_fd) {}
  void start_new(const std::string& staging_dir, const JournalIdentity& identity);
  /// Reads the journal back, checks it is this query's and keeps its pieces (true), unless
  /// `keep_pieces` is false (false). Throws as open() says.
  bool read_back(const std::string& target, const std::string& staging_dir,
                 const JournalIdentity& identity, bool keep_pieces);
  void take_over(const std::string& staging_dir);
  /// Writes one sealed record and syncs it.
  void append_record(const std::string& record);

  std::string path_;
  int lock_fd_ = -1;  ///< the staging directory, flock-ed
  int fd_ = -1;       ///< the journal, opened for appending
  std::map<int, JournalPartition> recovered_;
  std::optional<JournalBreakerResult> breaker_result_;
  std::mutex mu_;  ///< serializes append
};

}  // namespace ember
