// A query's output directory, written all-or-nothing: files go to a hidden staging directory
// beside the target, and the complete set replaces the target in one step when the query ends
// well. The protocol is described in docs/design/write_protocol.md.
#pragma once

#include <memory>
#include <string>

#include "ember/storage_options.h"

namespace ember {

struct ObjectStoreTarget;
class PartUploads;

/// The commit step of every writer of whole directories. CSV and JSON lines use it today;
/// later formats (Parquet, Arrow IPC) write their files into dir() the same way, and a
/// multi-rank runner can share one: rank 0 opens it, every rank writes its parts into dir()
/// (which lies on the target's filesystem, so it must be shared storage), and rank 0 commits
/// after all ranks have finished writing.
///
/// Lifecycle: open() checks the target and creates the staging directory, before any work
/// runs; writers fill dir(); commit() makes the set durable and swaps it in; destroying an
/// uncommitted StagedOutput (the query failed, threw, or was cancelled) removes the staging
/// directory and leaves the target exactly as it was. A writer that is killed leaves its
/// staging directory behind; the next open() of the same target removes it.
///
/// Not thread-safe: one thread opens, commits or aborts; writers only add files to dir().
class StagedOutput {
 public:
  /// Resolves and checks `target` (IoError when it is not a directory, not writable or a
  /// mount point; InvalidArgument when it holds a file ember did not write), creates its
  /// missing parents, removes the debris of dead writers to it, and creates a fresh staging
  /// directory beside it (IoError when the parent is not writable). Touches nothing inside
  /// the target.
  ///
  /// An s3://bucket/prefix target is checked with `storage` (check_object_store_target), and
  /// staged in a fresh local temporary directory; its part files go up as they are written
  /// (uploads()) and commit() publishes them (publish_to_object_store). The uploads a killed
  /// writer to the same prefix left open are aborted here, with its directory.
  static StagedOutput open(const std::string& target, const StorageOptions& storage = {});
  /// The same for a resumable write: its staging directory has a fixed name
  /// (resume_staging_name), and one that an earlier run left is kept, files and all, for its
  /// journal (output_journal.h) to sort out; an abort keeps it too. existed() says whether it
  /// was there already. InvalidArgument for an s3:// or http(s):// target.
  static StagedOutput open_resumable(const std::string& target);

  StagedOutput(StagedOutput&& other) noexcept;
  StagedOutput& operator=(StagedOutput&&) = delete;
  StagedOutput(const StagedOutput&) = delete;
  StagedOutput& operator=(const StagedOutput&) = delete;
  /// Aborts unless committed.
  ~StagedOutput();

  /// The staging directory where writers put the files of the set.
  const std::string& dir() const { return staging_; }
  /// The target as it was resolved (absolute, links followed).
  const std::string& target() const { return target_; }
  /// A resumable staging directory that an earlier run left (open_resumable).
  bool existed() const { return existed_; }
  /// For an object store target: where a writer hands each part file it has committed into
  /// dir(), to go up while the query runs. Null for a local target.
  PartUploads* uploads() const { return uploads_.get(); }

  /// Writes `_SUCCESS`, fsyncs the staging directory, puts it in the target's place (see
  /// replace_directory), fsyncs the parent, then removes the previous set. Checks the target
  /// again first, since the query may have run for hours (InvalidArgument when a foreign file
  /// appeared). Throws IoError; after a throw the target is as it was. Call once.
  void commit();

  /// Removes the staging directory; the target is untouched. Idempotent; never throws.
  void abort() noexcept;

 private:
  StagedOutput(std::string given, std::string target, std::string staging);

  std::string given_;       ///< the target as the user named it, for messages
  std::string target_;      ///< resolved
  std::string staging_;     ///< empty once committed, aborted or moved from
  bool resumable_ = false;  ///< an abort keeps the staging directory for the next run
  bool existed_ = false;
  /// An object store target: staging_ is a local temporary directory published at commit.
  std::shared_ptr<const ObjectStoreTarget> remote_;
  std::unique_ptr<PartUploads> uploads_;  ///< with remote_
};

}  // namespace ember
