// libcurl behind HttpClient: a pool of easy handles over one share handle, so that connections
// (and TLS sessions, DNS answers) outlive the request that opened them.
#include "io/storage/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include "ember/error.h"

namespace ember {

std::string HttpResponse::header(const std::string& lower_name) const {
  const auto it = headers.find(lower_name);
  return it == headers.end() ? "" : it->second;
}

struct HttpClient::Shared {
  CURLSH* share = nullptr;
  std::mutex locks[CURL_LOCK_DATA_LAST];
  std::mutex idle_mutex;
  std::vector<CURL*> idle;  ///< handles between requests (each keeps its own settings cache)

  CURL* acquire() {
    {
      std::lock_guard<std::mutex> lock(idle_mutex);
      if (!idle.empty()) {
        CURL* c = idle.back();
        idle.pop_back();
        return c;
      }
    }
    CURL* c = curl_easy_init();
    if (!c) throw IoError("cannot start an HTTP client (curl_easy_init failed)");
    return c;
  }
  void release(CURL* c) {
    curl_easy_reset(c);
    std::lock_guard<std::mutex> lock(idle_mutex);
    idle.push_back(c);
  }
};

namespace {

void lock_share(CURL*, curl_lock_data data, curl_lock_access, void* shared) {
  static_cast<std::mutex*>(shared)[data].lock();
}
void unlock_share(CURL*, curl_lock_data data, void* shared) {
  static_cast<std::mutex*>(shared)[data].unlock();
}

/// One attempt's state, seen by the body and header callbacks.
struct Transfer {
  const HttpRequest& request;
  HttpResponse& response;
  CURL* curl;
  int64_t skip = -1;  ///< ranged GET: bytes still to drop (a 200 answer); -1: not known yet
  bool error_body = false;
  bool range_done = false;  ///< the range is whole: the transfer was ended on purpose
};

size_t on_header(char* data, size_t, size_t n, void* p) {
  auto& t = *static_cast<Transfer*>(p);
  std::string line(data, n);
  if (line.rfind("HTTP/", 0) == 0) {  // a new answer (after a redirect or 100 Continue)
    t.response.headers.clear();
    return n;
  }
  const size_t colon = line.find(':');
  if (colon == std::string::npos) return n;
  std::string name = line.substr(0, colon);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const size_t b = line.find_first_not_of(" \t", colon + 1);
  const size_t e = line.find_last_not_of(" \t\r\n");
  t.response.headers[name] = b == std::string::npos || e < b ? "" : line.substr(b, e - b + 1);
  return n;
}

size_t on_body(char* data, size_t, size_t n, void* p) {
  auto& t = *static_cast<Transfer*>(p);
  const HttpRequest& r = t.request;
  if (r.range_size <= 0) {
    t.response.body.append(data, n);
    return n;
  }
  if (t.skip < 0) {
    long status = 0;
    curl_easy_getinfo(t.curl, CURLINFO_RESPONSE_CODE, &status);
    t.error_body = status < 200 || status >= 300;
    // 200 to a ranged request: the server sends the whole body; keep only the range.
    t.skip = status == 200 ? r.range_begin : 0;
  }
  if (t.error_body) {
    t.response.body.append(data, n);
    return n;
  }
  size_t at = 0;
  if (t.skip > 0) {
    at = static_cast<size_t>(std::min<int64_t>(t.skip, static_cast<int64_t>(n)));
    t.skip -= static_cast<int64_t>(at);
  }
  const int64_t room = r.range_size - t.response.bytes_into;
  const size_t take = static_cast<size_t>(std::min<int64_t>(room, static_cast<int64_t>(n - at)));
  if (r.into) {
    std::memcpy(r.into + t.response.bytes_into, data + at, take);
  } else {
    t.response.body.append(data + at, take);
  }
  t.response.bytes_into += static_cast<int64_t>(take);
  if (t.response.bytes_into == r.range_size) {
    t.range_done = true;
    return at + take == n ? n : 0;  // 0 ends a transfer that would send more than asked
  }
  return n;
}

/// The CA bundle to check servers' certificates against in place of the system's: the file
/// AWS_CA_BUNDLE names (the AWS CLI's variable), else CURL_CA_BUNDLE (curl's); nullptr for the
/// system's. Read per request, so a test or a long-lived process may change it.
const char* ca_bundle() {
  for (const char* name : {"AWS_CA_BUNDLE", "CURL_CA_BUNDLE"}) {
    const char* v = std::getenv(name);
    if (v != nullptr && *v != '\0') return v;
  }
  return nullptr;
}

bool retryable_transport(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

curl_slist* request_headers(const HttpRequest& r) {
  curl_slist* list = nullptr;
  for (const std::string& h : r.headers) list = curl_slist_append(list, h.c_str());
  if (r.range_size > 0) {
    const std::string range = "Range: bytes=" + std::to_string(r.range_begin) + "-" +
                              std::to_string(r.range_begin + r.range_size - 1);
    list = curl_slist_append(list, range.c_str());
  }
  if (r.sign && !r.sign->access_key_id.empty()) {
    // S3 wants the payload's hash in a header; an unsigned payload keeps bodies unhashed.
    list = curl_slist_append(list, "x-amz-content-sha256: UNSIGNED-PAYLOAD");
    if (!r.sign->session_token.empty())
      list = curl_slist_append(list, ("x-amz-security-token: " + r.sign->session_token).c_str());
  }
  list = curl_slist_append(list, "Expect:");  // no 100-continue round trip before a body
  if (r.method == "PUT" || r.method == "POST")
    list = curl_slist_append(list, "Content-Type: application/octet-stream");
  return list;
}

void configure(CURL* c, const HttpRequest& r, curl_slist* headers, Transfer& t, CURLSH* share,
               char* error) {
  curl_easy_setopt(c, CURLOPT_SHARE, share);
  curl_easy_setopt(c, CURLOPT_URL, r.url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, r.sign ? 0L : 1L);
  curl_easy_setopt(c, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
  if (const char* bundle = ca_bundle()) curl_easy_setopt(c, CURLOPT_CAINFO, bundle);
  // A stalled transfer (under 1 byte/s for 60 s) is a timeout, retried like a reset.
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 60L);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
  if (r.sign) {
    curl_easy_setopt(c, CURLOPT_MAXCONNECTS, static_cast<long>(r.sign->max_connections));
    if (!r.sign->access_key_id.empty()) {
      const std::string provider = "aws:amz:" + r.sign->region + ":s3";
      curl_easy_setopt(c, CURLOPT_AWS_SIGV4, provider.c_str());  // curl copies strings
      curl_easy_setopt(c, CURLOPT_USERNAME, r.sign->access_key_id.c_str());
      curl_easy_setopt(c, CURLOPT_PASSWORD, r.sign->secret_access_key.c_str());
    }
  }
  if (r.method == "HEAD") {
    curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  } else if (r.method == "PUT" || r.method == "POST") {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, r.body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, r.method.c_str());
  } else if (r.method != "GET") {
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, r.method.c_str());
  }
}

}  // namespace

HttpClient& HttpClient::instance() {
  static HttpClient client;
  return client;
}

HttpClient::HttpClient() : shared_(new Shared) {
  curl_global_init(CURL_GLOBAL_DEFAULT);
  shared_->share = curl_share_init();
  curl_share_setopt(shared_->share, CURLSHOPT_LOCKFUNC, lock_share);
  curl_share_setopt(shared_->share, CURLSHOPT_UNLOCKFUNC, unlock_share);
  curl_share_setopt(shared_->share, CURLSHOPT_USERDATA, shared_->locks);
  curl_share_setopt(shared_->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
  curl_share_setopt(shared_->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
  curl_share_setopt(shared_->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
}

HttpClient::~HttpClient() {
  for (CURL* c : shared_->idle) curl_easy_cleanup(c);
  curl_share_cleanup(shared_->share);
  delete shared_;
}

HttpResponse HttpClient::send(const HttpRequest& request, const RetryPolicy& policy) {
  std::string last_failure;
  int attempts = 0;
  for (int attempt = 0; attempt < policy.max_attempts; ++attempt) {
    ++attempts;
    if (attempt > 0) std::this_thread::sleep_for(policy.delay(attempt - 1));
    HttpResponse response;
    CURL* c = shared_->acquire();
    curl_slist* headers = request_headers(request);
    char error[CURL_ERROR_SIZE] = {0};
    Transfer t{request, response, c};
    configure(c, request, headers, t, shared_->share, error);
    const CURLcode code = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &response.status);
    curl_slist_free_all(headers);
    shared_->release(c);
    const bool ended_on_purpose = code == CURLE_WRITE_ERROR && t.range_done;
    if (code == CURLE_OK || ended_on_purpose) {
      if (!RetryPolicy::retryable_status(response.status)) return response;
      last_failure = "HTTP " + std::to_string(response.status);
      if (attempt + 1 == policy.max_attempts) return response;
      continue;
    }
    last_failure = error[0] ? error : curl_easy_strerror(code);
    if (code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CACERT_BADFILE) {
      const char* bundle = ca_bundle();
      last_failure += bundle ? std::string("; checked against the CA bundle ") + bundle
                             : "; a server whose certificate the system's CAs do not sign "
                               "needs AWS_CA_BUNDLE set to a CA bundle that does";
    }
    if (!retryable_transport(code)) break;
  }
  const std::string& name = request.label.empty() ? request.url : request.label;
  throw IoError("cannot " + request.method + " '" + name + "' (" + request.url +
                "): " + last_failure + " (" + std::to_string(attempts) +
                (attempts == 1 ? " attempt)" : " attempts)"));
}

}  // namespace ember
