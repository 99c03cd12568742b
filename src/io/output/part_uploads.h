// The part files of a write to an object store, uploaded while the query runs: each file, once
// committed in the local staging directory, goes up as a multipart upload that is not completed
// (nothing is visible yet) and its local copy is removed, so that the local disk holds only the
// parts still being written or uploaded. The commit completes them all (object_store_output.h).
// A guard process aborts them if this process dies first.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "io/output/upload_guard.h"
#include "io/storage/s3_multipart_upload.h"

namespace ember {

struct ObjectStoreTarget;

/// The name of the file, in a local staging directory, that lists the uploads started from it
/// (one "<upload id> <key>" line each, written before the first part goes up), so that the
/// uploads of a writer that was killed can be aborted by the next write to the same prefix.
inline constexpr const char* kUploadsListName = ".uploads";

/// Aborts every upload that the staging directory `dir` lists (kUploadsListName) under
/// `target`'s bucket. Best effort: never throws (an upload left open is invisible, and a bucket
/// lifecycle rule removes it).
void abort_listed_uploads(const std::string& dir, const ObjectStoreTarget& target) noexcept;

/// Uploads the files of one local staging directory to `target`'s prefix, a few at once, on
/// threads of its own. Thread-safe.
class PartUploads {
 public:
  PartUploads(std::shared_ptr<const ObjectStoreTarget> target, std::string staging);
  /// Aborts every upload not handed out by finish().
  ~PartUploads();
  PartUploads(const PartUploads&) = delete;
  PartUploads& operator=(const PartUploads&) = delete;

  /// Queues the file `name` of the staging directory, complete and closed, to go up as the
  /// object `<prefix><name>`. Never waits for the upload. After a failure, the file is left
  /// where it is and finish() rethrows the failure.
  void add(const std::string& name);
  /// Uploads the file `name` as add() does, and waits for it: the upload, not completed, is
  /// the caller's from here (finish() and abort() leave it alone). Rethrows the failure of
  /// any upload. For a rank of the MPI runner, whose uploads rank 0 completes.
  UploadedParts take(const std::string& name);
  /// An upload another process started and filled under this target's prefix, completed (or
  /// aborted) with this one's. Listed in the staging directory like this one's own.
  void adopt(UploadedParts parts);
  /// Queues every file of the staging directory that was not added (but `_SUCCESS` and hidden
  /// files), then waits for every queued file to be up. Returns their uploads, not completed,
  /// in name order; rethrows the first failure (IoError naming the object and the server's
  /// answer) after aborting every upload. Call once, after the last add().
  std::vector<MultipartUpload> finish();
  /// Stops, and aborts every upload started. Idempotent; never throws.
  void abort() noexcept;
  /// Every upload finish() returned has been completed (or aborted): the guard process that
  /// would abort them if this process died goes.
  void completed() noexcept;

 private:
  void work();
  void upload(const std::string& name);
  /// Appends "<id> <key>" to the staging directory's list. IoError.
  void list_upload(const MultipartUpload& upload);
  void stop_workers() noexcept;
  /// Starts the guard process before the first upload (mu_ held).
  void start_guard();

  std::shared_ptr<const ObjectStoreTarget> target_;
  std::string staging_;
  std::mutex mu_;
  std::condition_variable ready_;  ///< a file was queued, or the workers stop
  std::condition_variable idle_;   ///< a file is up (or failed)
  std::deque<std::string> queue_;  // guarded by mu_
  std::set<std::string> added_;    // guarded by mu_: every name queued
  std::set<std::string> up_;       // guarded by mu_: every name whose upload is filled
  int busy_ = 0;                   // guarded by mu_: files being uploaded
  bool stopping_ = false;          // guarded by mu_
  std::exception_ptr error_;       // guarded by mu_: the first failure
  /// Guarded by mu_: every upload started, by name (complete or not yet).
  std::vector<std::pair<std::string, std::shared_ptr<MultipartUpload>>> uploads_;
  std::vector<std::thread> workers_;  ///< started with the first add()
  /// Guarded by mu_: started with the first upload; it aborts the listed uploads if this
  /// process dies before completed() or abort() (upload_guard.h). Null: none could start.
  std::unique_ptr<UploadGuard> guard_;
  bool guarded_ = false;  // guarded by mu_: a guard was started (or could not be)
  std::mutex list_mu_;    ///< serialises appends to the list file
};

}  // namespace ember
