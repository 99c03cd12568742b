// An attempt's curl settings and callbacks, and the judgement of how it ended.
#include "io/storage/http_attempt.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

namespace ember {

size_t on_attempt_header(char* data, size_t, size_t n, void* p) {
  auto& t = *static_cast<HttpAttempt*>(p);
  std::string line(data, n);
  if (line.rfind("HTTP/", 0) == 0) {  // a new answer (after a redirect or 100 Continue)
    t.response_.headers.clear();
    return n;
  }
  const size_t colon = line.find(':');
  if (colon == std::string::npos) return n;
  std::string name = line.substr(0, colon);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const size_t b = line.find_first_not_of(" \t", colon + 1);
  const size_t e = line.find_last_not_of(" \t\r\n");
  t.response_.headers[name] = b == std::string::npos || e < b ? "" : line.substr(b, e - b + 1);
  return n;
}

size_t on_attempt_body(char* data, size_t, size_t n, void* p) {
  auto& t = *static_cast<HttpAttempt*>(p);
  const HttpRequest& r = t.request_;
  if (r.range_size <= 0) {
    t.response_.body.append(data, n);
    return n;
  }
  if (t.skip_ < 0) {
    long status = 0;
    curl_easy_getinfo(t.curl_, CURLINFO_RESPONSE_CODE, &status);
    t.error_body_ = status < 200 || status >= 300;
    // 200 to a ranged request: the server sends the whole body; keep only the range.
    t.skip_ = status == 200 ? r.range_begin : 0;
  }
  if (t.error_body_) {
    t.response_.body.append(data, n);
    return n;
  }
  size_t at = 0;
  if (t.skip_ > 0) {
    at = static_cast<size_t>(std::min<int64_t>(t.skip_, static_cast<int64_t>(n)));
    t.skip_ -= static_cast<int64_t>(at);
  }
  const int64_t room = r.range_size - t.response_.bytes_into;
  const size_t take = static_cast<size_t>(std::min<int64_t>(room, static_cast<int64_t>(n - at)));
  if (r.into) {
    std::memcpy(r.into + t.response_.bytes_into, data + at, take);
  } else {
    t.response_.body.append(data + at, take);
  }
  t.response_.bytes_into += static_cast<int64_t>(take);
  if (t.response_.bytes_into == r.range_size) {
    t.range_done_ = true;
    return at + take == n ? n : 0;  // 0 ends a transfer that would send more than asked
  }
  return n;
}

namespace {

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

void configure(CURL* c, const HttpRequest& r, curl_slist* headers, HttpAttempt* t, CURLSH* share,
               char* error) {
  if (share) curl_easy_setopt(c, CURLOPT_SHARE, share);
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
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_attempt_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, t);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_attempt_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, t);
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

HttpAttempt::HttpAttempt(const HttpRequest& request, CURL* curl, CURLSH* share)
    : request_(request), curl_(curl), headers_(request_headers(request)) {
  configure(curl, request, headers_, this, share, error_);
}

HttpAttempt::~HttpAttempt() { curl_slist_free_all(headers_); }

HttpAttempt::Verdict HttpAttempt::judge(CURLcode code, bool last, std::string& failure) {
  curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &response_.status);
  const bool ended_on_purpose = code == CURLE_WRITE_ERROR && range_done_;
  if (code == CURLE_OK || ended_on_purpose) {
    if (!RetryPolicy::retryable_status(response_.status) || last) return Verdict::Answered;
    failure = "HTTP " + std::to_string(response_.status);
    return Verdict::Retry;
  }
  failure = error_[0] ? error_ : curl_easy_strerror(code);
  if (code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CACERT_BADFILE) {
    const char* bundle = ca_bundle();
    failure += bundle ? std::string("; checked against the CA bundle ") + bundle
                      : "; a server whose certificate the system's CAs do not sign "
                        "needs AWS_CA_BUNDLE set to a CA bundle that does";
  }
  return retryable_transport(code) ? Verdict::Retry : Verdict::Failed;
}

std::string no_answer_message(const HttpRequest& request, const std::string& failure,
                              int attempts) {
  const std::string& name = request.label.empty() ? request.url : request.label;
  return "cannot " + request.method + " '" + name + "' (" + request.url + "): " + failure + " (" +
         std::to_string(attempts) + (attempts == 1 ? " attempt)" : " attempts)");
}

}  // namespace ember
