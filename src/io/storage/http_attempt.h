// One attempt of an HTTP request on a curl easy handle: its settings, the state its callbacks
// fill in, and what its end means (an answer, another try, or a failure). The blocking client
// (http_client.h) and the multi-driven one (http_multi.h) both run requests as attempts.
#pragma once

#include <curl/curl.h>

#include <string>

#include "io/storage/http_client.h"

namespace ember {

class HttpAttempt {
 public:
  /// Configures `curl` (a fresh or reset easy handle) for `request`, which must outlive the
  /// attempt; `share` (may be null) shares connections between handles.
  HttpAttempt(const HttpRequest& request, CURL* curl, CURLSH* share);
  ~HttpAttempt();
  HttpAttempt(const HttpAttempt&) = delete;
  HttpAttempt& operator=(const HttpAttempt&) = delete;

  enum class Verdict {
    Answered,  ///< response() is the server's answer (an error status included)
    Retry,     ///< a retryable status or transport failure: try again if attempts remain
    Failed     ///< a failure no retry mends (a certificate refused, a bad URL)
  };
  /// Judges the transfer that ended with `code`. A retryable status on the `last` attempt is
  /// Answered; `failure` gets what went wrong otherwise.
  Verdict judge(CURLcode code, bool last, std::string& failure);
  HttpResponse& response() { return response_; }

 private:
  friend size_t on_attempt_header(char*, size_t, size_t, void*);
  friend size_t on_attempt_body(char*, size_t, size_t, void*);

  const HttpRequest& request_;
  CURL* curl_;
  curl_slist* headers_ = nullptr;
  char error_[CURL_ERROR_SIZE] = {0};
  HttpResponse response_;
  int64_t skip_ = -1;  ///< ranged GET: bytes still to drop (a 200 answer); -1: not known yet
  bool error_body_ = false;
  bool range_done_ = false;  ///< the range is whole: the transfer was ended on purpose
};

/// The IoError message of a request that got no answer: "cannot GET 'name' (url): what
/// (n attempts)".
std::string no_answer_message(const HttpRequest& request, const std::string& failure, int attempts);

}  // namespace ember
