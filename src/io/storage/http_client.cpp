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
#include "io/storage/http_attempt.h"

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
  std::string failure;
  int attempts = 0;
  for (int attempt = 0; attempt < policy.max_attempts; ++attempt) {
    ++attempts;
    if (attempt > 0) std::this_thread::sleep_for(policy.delay(attempt - 1));
    CURL* c = shared_->acquire();
    HttpAttempt::Verdict verdict;
    HttpResponse response;
    {
      HttpAttempt a(request, c, shared_->share);
      verdict = a.judge(curl_easy_perform(c), attempt + 1 == policy.max_attempts, failure);
      response = std::move(a.response());
    }
    shared_->release(c);
    if (verdict == HttpAttempt::Verdict::Answered) return response;
    if (verdict == HttpAttempt::Verdict::Failed) break;
  }
  throw IoError(no_answer_message(request, failure, attempts));
}

}  // namespace ember
