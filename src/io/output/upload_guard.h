// A process that outlives a write to an object store. The writer's parts go up as multipart
// uploads while its query runs; a writer that is killed (SIGKILL, a crash, the machine's OOM
// killer) cannot abort them itself. Its guard, a child process in a session of its own, holds a
// pipe from the writer: when the pipe closes without the writer saying that it has ended its
// uploads (completed or aborted them), the guard aborts every upload the writer's staging
// directory lists and removes the directory. So a killed query leaves no open upload.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

namespace ember {

struct ObjectStoreTarget;

/// Set in a process that start() started as a guard: the descriptor of its pipe.
inline constexpr const char* kUploadGuardFdVariable = "EMBER_UPLOAD_GUARD_FD";

/// The command line a guard is started with: this program's, as ember::init records it (its
/// argv, or Python's `python -m ember --worker`), so that the guard reaches ember::init, which
/// serves it (serve_upload_guard_if_asked). Without one, writes start no guard.
void set_upload_guard_command(std::vector<std::string> argv);

/// In a process started as a guard: serves the writer and exits, never returning. Elsewhere
/// returns at once. Called first thing by ember::init.
void serve_upload_guard_if_asked();

/// The writer's end of one guard.
class UploadGuard {
 public:
  /// Starts the guard of the uploads that staging directory `dir` lists to `target`. Null when
  /// none can start (no command line: ember::init was not called; the system refused a
  /// process): the next write to the prefix from this machine then aborts what a kill left.
  static std::unique_ptr<UploadGuard> start(const ObjectStoreTarget& target,
                                            const std::string& dir);
  /// release().
  ~UploadGuard();
  UploadGuard(const UploadGuard&) = delete;
  UploadGuard& operator=(const UploadGuard&) = delete;

  /// The writer has completed or aborted every upload it listed: the guard exits doing nothing
  /// (reaped by a thread of its own when it has not yet). Idempotent; never throws.
  void release() noexcept;

 private:
  UploadGuard(pid_t pid, int fd) : pid_(pid), fd_(fd) {}
  pid_t pid_;
  int fd_;  ///< the pipe's write end; -1 once released
};

}  // namespace ember
