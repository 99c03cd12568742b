// The transfer thread: new requests and retries that came due are added to the multi handle,
// curl_multi_poll waits for sockets, timers or a wake-up, and each finished transfer is judged
// as HttpClient judges one.
#include "io/storage/http_multi.h"

#include <curl/curl.h>
#include <unistd.h>

#include <algorithm>

#include "ember/error.h"
#include "io/storage/http_attempt.h"

namespace ember {

struct HttpMulti::Request {
  HttpRequest request;
  Done done;
  RetryPolicy policy;
  std::function<bool()> abandon;
  int attempts = 0;
  std::string failure;
  std::chrono::steady_clock::time_point due{};
  CURL* easy = nullptr;
  std::unique_ptr<HttpAttempt> attempt;
};

HttpMulti& HttpMulti::instance() {
  static HttpMulti multi;
  return multi;
}

HttpMulti::HttpMulti() : pid_(::getpid()) {
  HttpClient::instance();  // curl_global_init, once, before any handle
  multi_ = curl_multi_init();
  if (!multi_) throw IoError("cannot start an HTTP client (curl_multi_init failed)");
  thread_ = std::thread([this] { loop(); });
}

HttpMulti::~HttpMulti() {
  if (::getpid() != pid_) {
    // A forked child's copy: the thread and the transfers are its parent's.
    (void)new std::thread(std::move(thread_));  // neither joined nor destroyed
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  curl_multi_wakeup(static_cast<CURLM*>(multi_));
  thread_.join();
  for (auto& r : waiting_) {
    if (r->easy) {
      curl_multi_remove_handle(static_cast<CURLM*>(multi_), r->easy);
      r->attempt.reset();
      curl_easy_cleanup(r->easy);
    }
  }
  for (void* e : idle_handles_) curl_easy_cleanup(static_cast<CURL*>(e));
  curl_multi_cleanup(static_cast<CURLM*>(multi_));
}

namespace {

/// curl's progress callback (about once a second while a transfer stalls, more often while it
/// moves): a non-zero answer ends the transfer with CURLE_ABORTED_BY_CALLBACK.
int on_progress(void* request, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto& abandon = *static_cast<const std::function<bool()>*>(request);
  return abandon() ? 1 : 0;
}

std::string abandoned_message(const HttpRequest& r) {
  return "'" + (r.label.empty() ? r.url : r.label) +
         "' was not downloaded: the query was cancelled";
}

}  // namespace

void HttpMulti::send(HttpRequest request, Done done, RetryPolicy policy,
                     std::function<bool()> abandon) {
  if (::getpid() != pid_) {
    // A child forked without exec (Python's multiprocessing "fork") has no transfer thread:
    // say so rather than wait for an answer that never comes.
    done(nullptr, "cannot " + request.method + " '" + request.url +
                      "': ember's transfer thread does not survive fork(); start the process "
                      "with exec (Python: multiprocessing's 'spawn' or 'forkserver')");
    return;
  }
  auto r = std::make_unique<Request>();
  r->request = std::move(request);
  r->done = std::move(done);
  r->policy = policy;
  r->abandon = std::move(abandon);
  {
    std::lock_guard<std::mutex> lock(mu_);
    incoming_.push_back(std::move(r));
  }
  curl_multi_wakeup(static_cast<CURLM*>(multi_));
}

std::chrono::steady_clock::time_point HttpMulti::start_due() {
  const auto now = std::chrono::steady_clock::now();
  auto next = now + std::chrono::seconds(1);
  std::vector<Request*> abandoned;
  for (auto& r : waiting_) {
    if (r->easy) continue;             // running
    if (r->abandon && r->abandon()) {  // new, or waiting to be tried again
      abandoned.push_back(r.get());
      continue;
    }
    if (r->due > now) {
      next = std::min(next, r->due);
      continue;
    }
    CURL* easy = nullptr;
    if (!idle_handles_.empty()) {
      easy = static_cast<CURL*>(idle_handles_.back());
      idle_handles_.pop_back();
    } else {
      easy = curl_easy_init();
    }
    ++r->attempts;
    if (!easy) {
      r->failure = "curl_easy_init failed";
      r->due = now + r->policy.delay(r->attempts - 1);
      continue;
    }
    r->easy = easy;
    r->attempt = std::make_unique<HttpAttempt>(r->request, easy, nullptr);
    curl_easy_setopt(easy, CURLOPT_PRIVATE, r.get());
    if (r->abandon) {
      curl_easy_setopt(easy, CURLOPT_NOPROGRESS, 0L);
      curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, on_progress);
      curl_easy_setopt(easy, CURLOPT_XFERINFODATA, &r->abandon);
    }
    curl_multi_add_handle(static_cast<CURLM*>(multi_), easy);
  }
  for (Request* r : abandoned) end_abandoned(r);
  return next;
}

std::unique_ptr<HttpMulti::Request> HttpMulti::take_waiting(Request* r) {
  auto it = std::find_if(waiting_.begin(), waiting_.end(),
                         [r](const std::unique_ptr<Request>& w) { return w.get() == r; });
  std::unique_ptr<Request> own = std::move(*it);
  waiting_.erase(it);
  return own;
}

void HttpMulti::end_abandoned(Request* r) {
  std::unique_ptr<Request> own = take_waiting(r);
  own->done(nullptr, abandoned_message(own->request));
}

void HttpMulti::finish(void* handle, int code) {
  auto* easy = static_cast<CURL*>(handle);
  Request* r = nullptr;
  curl_easy_getinfo(easy, CURLINFO_PRIVATE, &r);
  curl_multi_remove_handle(static_cast<CURLM*>(multi_), easy);
  const bool last = r->attempts >= r->policy.max_attempts;
  const HttpAttempt::Verdict verdict =
      r->attempt->judge(static_cast<CURLcode>(code), last, r->failure);
  HttpResponse response = std::move(r->attempt->response());
  r->attempt.reset();
  curl_easy_reset(easy);
  idle_handles_.push_back(easy);
  r->easy = nullptr;
  if (code == CURLE_ABORTED_BY_CALLBACK) return end_abandoned(r);
  if (verdict == HttpAttempt::Verdict::Retry && !last) {
    r->due = std::chrono::steady_clock::now() + r->policy.delay(r->attempts - 1);
    return;  // stays in waiting_
  }
  std::unique_ptr<Request> own = take_waiting(r);
  if (verdict == HttpAttempt::Verdict::Answered) {
    own->done(&response, "");
  } else {
    own->done(nullptr, no_answer_message(own->request, own->failure, own->attempts));
  }
}

void HttpMulti::loop() {
  auto* multi = static_cast<CURLM*>(multi_);
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) return;
      for (auto& r : incoming_) waiting_.push_back(std::move(r));
      incoming_.clear();
    }
    const auto next = start_due();
    int running = 0;
    curl_multi_perform(multi, &running);
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &left)) {
      if (msg->msg == CURLMSG_DONE) finish(msg->easy_handle, static_cast<int>(msg->data.result));
    }
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(
        next - std::chrono::steady_clock::now());
    curl_multi_poll(multi, nullptr, 0, static_cast<int>(std::clamp<int64_t>(wait.count(), 0, 1000)),
                    nullptr);
  }
}

}  // namespace ember
