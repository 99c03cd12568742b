// HTTP(S) requests through libcurl, with connections, TLS sessions and DNS answers shared by
// every request of the process, AWS Signature V4 when asked, and retries with backoff.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "io/storage/retry_policy.h"
#include "io/storage/s3_config.h"

namespace ember {

/// One request. A ranged GET (`range_size` > 0) may write straight into `into` (at least
/// `range_size` bytes); a server that ignores Range and answers 200 with the whole body is
/// handled: the bytes before `range_begin` are skipped and the transfer ends after the range.
struct HttpRequest {
  std::string method = "GET";  ///< GET, HEAD, PUT, POST or DELETE
  std::string url;
  std::string label;  ///< what messages call the resource (e.g. s3://bucket/key); "" = url
  std::vector<std::string> headers;  ///< "Name: value"
  std::string body;                  ///< PUT and POST
  int64_t range_begin = 0;
  int64_t range_size = 0;          ///< > 0: ask for bytes [range_begin, range_begin + range_size)
  char* into = nullptr;            ///< ranged GET: where the bytes go (else response.body)
  const S3Config* sign = nullptr;  ///< sign with these credentials (SigV4), unless no key
};

/// The server's answer. `status` 0 never comes back: a request no server answered is an
/// IoError once its retries are spent.
struct HttpResponse {
  long status = 0;
  std::map<std::string, std::string> headers;  ///< names lower-cased
  std::string body;                            ///< empty when the bytes went `into`
  int64_t bytes_into = 0;                      ///< ranged GET into a buffer: bytes written

  bool ok() const { return status >= 200 && status < 300; }
  /// A header's value, or "" when absent.
  std::string header(const std::string& lower_name) const;
};

/// The process's HTTP client. Thread-safe: calls may overlap, each on its own curl handle,
/// and all of them share one connection cache, so a connection opened by one scan partition
/// is reused by the next request to the same server, whichever thread sends it.
class HttpClient {
 public:
  static HttpClient& instance();
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  /// Sends `request`, again after a backoff while the server answers with a retryable status
  /// (RetryPolicy::retryable_status) or the transfer fails (refused or reset connection,
  /// timeout). Returns the last answer, whatever its status; IoError naming the URL when no
  /// answer came after the last attempt.
  HttpResponse send(const HttpRequest& request, const RetryPolicy& policy = {});

 private:
  HttpClient();
  struct Shared;
  Shared* shared_;
};

}  // namespace ember
