// Whole files named by URLs (s3://, http(s)://, file://, local paths), fetched without the
// asking thread waiting: what Expr::url_download runs on.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "io/storage/s3_config.h"
#include "io/storage/storage_url.h"

namespace ember {

/// A fetch's end: the file's bytes, or why there are none.
struct FetchOutcome {
  std::optional<std::string> bytes;  ///< the whole file; nullopt when it failed
  std::string error;                 ///< the IoError's message when it failed
};

/// The process's fetches. Remote files go to HttpMulti's transfer thread (curl's multi
/// interface: one thread drives every transfer, with retries and backoff); local files are
/// read by fetch threads started as the queue needs them. Either way at most `max_connections`
/// (the fetch's own) run at once in the process, first come first served; the rest wait in a
/// queue. s3:// URLs are signed with the credentials of the environment (resolved once).
class UrlFetcher {
 public:
  using Done = std::function<void(FetchOutcome)>;
  static UrlFetcher& instance();
  ~UrlFetcher();
  UrlFetcher(const UrlFetcher&) = delete;
  UrlFetcher& operator=(const UrlFetcher&) = delete;

  /// Queues the fetch of `url`; `done` runs on a fetch or transfer thread (never on the
  /// caller's) once it ended, and must not block. When `skip` returns true as the fetch comes
  /// up (its query was cancelled), nothing is fetched and `done` gets an error; a remote
  /// download under way when it turns true is abandoned within about a second. In a child
  /// forked without exec, `done` gets an error at once, on the caller's thread.
  void fetch(std::string url, int max_connections, std::function<bool()> skip, Done done);

 private:
  UrlFetcher();
  struct Job {
    std::string url;
    int max_connections = 1;
    std::function<bool()> skip;
    Done done;
    StorageUrl where;     ///< the URL parsed, once, when the fetch is queued
    std::string invalid;  ///< why the URL could not be parsed (read as local: the read says)
  };
  /// One queue and its limit: remote fetches, or local reads.
  struct Lane {
    std::deque<Job> queue;
    int active = 0;
  };
  /// Starts remote fetches from the queue while the limit allows. Under mu_.
  void start_remote_locked(std::vector<Job>& now);
  void start_remote(Job job);
  void run_local_thread();
  const S3Config& s3();

  const int pid_;  ///< the process the fetch threads run in
  std::mutex mu_;
  std::condition_variable cv_;
  Lane remote_, local_;
  std::vector<std::thread> threads_;  ///< local read threads
  int idle_ = 0;                      ///< local read threads waiting for a job
  bool stop_ = false;
  std::once_flag s3_once_;
  std::optional<S3Config> s3_;
  std::string s3_error_;
};

}  // namespace ember
