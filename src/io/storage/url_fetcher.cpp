// Two queues, each served first come, first served under the process-wide limit of the fetch at
// its head: remote fetches handed to the transfer thread, local reads run by fetch threads.
#include "io/storage/url_fetcher.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ember/error.h"
#include "io/storage/http_multi.h"
#include "io/storage/storage_error.h"
#include "io/storage/storage_url.h"

namespace ember {

namespace {

FetchOutcome read_local(const std::string& text, const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {std::nullopt, "cannot open '" + text + "': " + std::strerror(errno)};
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    return {std::nullopt, "cannot read '" + text + "': " + std::strerror(errno)};
  if (!S_ISREG(st.st_mode)) return {std::nullopt, "cannot read '" + text + "': not a file"};
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  size_t at = 0;
  while (at < bytes.size()) {
    const ssize_t got = ::pread(fd, bytes.data() + at, bytes.size() - at, static_cast<off_t>(at));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return {std::nullopt, "cannot read '" + text + "': " + std::strerror(errno)};
    if (got == 0) break;  // the file shrank while it was read
    at += static_cast<size_t>(got);
  }
  bytes.resize(at);
  return {std::move(bytes), {}};
}

}  // namespace

UrlFetcher& UrlFetcher::instance() {
  static UrlFetcher fetcher;
  return fetcher;
}

UrlFetcher::UrlFetcher() : pid_(::getpid()) {}

UrlFetcher::~UrlFetcher() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  // A forked child's copy lists threads that only its parent runs.
  if (::getpid() != pid_) {
    (void)new std::vector<std::thread>(std::move(threads_));  // neither joined nor destroyed
    return;
  }
  for (std::thread& t : threads_) t.join();
}

void UrlFetcher::fetch(std::string url, int max_connections, std::function<bool()> skip,
                       Done done) {
  if (::getpid() != pid_) {
    // A child forked without exec has none of the fetch threads: fail rather than wait.
    done({std::nullopt, "cannot fetch '" + url +
                            "': ember's fetch threads do not survive fork(); start the "
                            "process with exec (Python: multiprocessing's 'spawn')"});
    return;
  }
  Job job{std::move(url), std::max(1, max_connections), std::move(skip), std::move(done), {}, {}};
  try {
    job.where = parse_storage_url(job.url);
  } catch (const std::exception& e) {
    job.invalid = e.what();
  }
  const bool local = !job.invalid.empty() || !job.where.remote();
  std::vector<Job> now;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!local) {
      remote_.queue.push_back(std::move(job));
      start_remote_locked(now);
    } else {
      local_.queue.push_back(std::move(job));
      // A thread for every read that may run now, up to the limit: idle ones are used first.
      const int queued = static_cast<int>(local_.queue.size());
      if (queued > idle_ &&
          static_cast<int>(threads_.size()) < std::min(max_connections, queued + local_.active))
        threads_.emplace_back([this] { run_local_thread(); });
    }
  }
  if (local) cv_.notify_one();
  for (Job& j : now) start_remote(std::move(j));
}

void UrlFetcher::start_remote_locked(std::vector<Job>& now) {
  while (!remote_.queue.empty() && remote_.active < remote_.queue.front().max_connections) {
    now.push_back(std::move(remote_.queue.front()));
    remote_.queue.pop_front();
    ++remote_.active;
  }
}

void UrlFetcher::start_remote(Job job) {
  // Ends a fetch: its slot goes to the next in the queue, then its callback runs.
  auto end = [this](Job& ended, FetchOutcome outcome) {
    std::vector<Job> next;
    {
      std::lock_guard<std::mutex> lock(mu_);
      --remote_.active;
      start_remote_locked(next);
    }
    ended.done(std::move(outcome));
    for (Job& j : next) start_remote(std::move(j));
  };
  if (job.skip && job.skip()) {
    return end(job,
               {std::nullopt, "'" + job.url + "' was not downloaded: the query was cancelled"});
  }
  HttpRequest request;
  try {
    const StorageUrl& where = job.where;
    request.label = job.url;
    if (where.scheme == StorageUrl::Scheme::S3) {
      if (where.key.empty())
        return end(job, {std::nullopt,
                         "cannot download '" + job.url + "': it names a bucket, not an object"});
      request.url = s3().object_url(where.bucket, where.key);
      request.sign = &s3();
    } else {
      request.url = where.url;
    }
  } catch (const std::exception& e) {
    return end(job, {std::nullopt, e.what()});
  }
  auto shared = std::make_shared<Job>(std::move(job));
  HttpMulti::instance().send(
      std::move(request),
      [end, shared](HttpResponse* answer, const std::string& error) {
        FetchOutcome outcome;
        if (!answer) {
          outcome.error = error;
        } else if (!answer->ok()) {
          try {
            throw_storage_error("download", shared->url, *answer);
          } catch (const std::exception& e) {
            outcome.error = e.what();
          }
        } else {
          outcome.bytes = std::move(answer->body);
        }
        end(*shared, std::move(outcome));
      },
      RetryPolicy{}, [shared] { return shared->skip && shared->skip(); });
}

void UrlFetcher::run_local_thread() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    ++idle_;
    cv_.wait(lock, [this] {
      return stop_ ||
             (!local_.queue.empty() && local_.active < local_.queue.front().max_connections);
    });
    --idle_;
    if (stop_) return;
    Job job = std::move(local_.queue.front());
    local_.queue.pop_front();
    ++local_.active;
    lock.unlock();
    FetchOutcome outcome;
    if (job.skip && job.skip()) {
      outcome.error = "'" + job.url + "' was not read: the query was cancelled";
    } else if (!job.invalid.empty()) {
      outcome.error = job.invalid;
    } else {
      try {
        outcome = read_local(job.url, job.where.path);
      } catch (const std::exception& e) {  // a file too large to hold
        outcome.error = e.what();
      }
    }
    job.done(std::move(outcome));
    job = Job();  // its callback's captures go before the next fetch may end the query
    lock.lock();
    --local_.active;
    // The read at the head may have waited for this one's slot.
    if (!local_.queue.empty()) cv_.notify_one();
  }
}

const S3Config& UrlFetcher::s3() {
  std::call_once(s3_once_, [this] {
    try {
      s3_ = resolve_s3_config(StorageOptions{});
    } catch (const std::exception& e) {
      s3_error_ = e.what();
    }
  });
  if (!s3_) throw InvalidArgument(s3_error_);
  return *s3_;
}

}  // namespace ember
