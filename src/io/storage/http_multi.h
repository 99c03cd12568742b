// HTTP requests that no thread waits for: one thread of the process drives every transfer with
// curl's multi interface (as `curl --parallel` does), retrying with backoff as HttpClient does.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "io/storage/http_client.h"

namespace ember {

class HttpMulti {
 public:
  /// The request's end: its answer (whatever its status), or no answer and the IoError message
  /// saying why (once its retries are spent).
  using Done = std::function<void(HttpResponse* answer, const std::string& error)>;

  static HttpMulti& instance();
  ~HttpMulti();
  HttpMulti(const HttpMulti&) = delete;
  HttpMulti& operator=(const HttpMulti&) = delete;

  /// Starts `request` (any thread); `done` runs on the transfer thread and must not block.
  /// Requests run at once: the caller bounds how many are in flight. In a child forked
  /// without exec, `done` gets an error at once, on the caller's thread. Once `abandon` (when
  /// given; called on the transfer thread, so thread-safe) says true, the request ends within
  /// about a second, in the middle of a transfer or of a retry's wait, and `done` gets an
  /// error saying it was cancelled.
  void send(HttpRequest request, Done done, RetryPolicy policy = {},
            std::function<bool()> abandon = {});

 private:
  HttpMulti();
  struct Request;
  void loop();
  /// Starts the requests whose time has come; the time the next one's comes.
  std::chrono::steady_clock::time_point start_due();
  void finish(void* easy, int code);
  /// Takes `r` out of waiting_, for its end.
  std::unique_ptr<Request> take_waiting(Request* r);
  /// Ends `r` (in waiting_, not running) with the error that it was abandoned.
  void end_abandoned(Request* r);

  const int pid_;          ///< the process the transfer thread runs in
  void* multi_ = nullptr;  ///< CURLM
  std::mutex mu_;
  std::vector<std::unique_ptr<Request>> incoming_;  ///< sent, not yet seen by the loop (mu_)
  bool stop_ = false;                               ///< mu_
  // The loop thread's own:
  std::list<std::unique_ptr<Request>> waiting_;  ///< due now, or for a retry later
  std::vector<void*> idle_handles_;              ///< easy handles between requests
  std::thread thread_;
};

}  // namespace ember
