// Rendering of rows, throughput, partitions and actor utilisation.
#include "exec/progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace ember {

namespace {

std::string with_commas(int64_t v) {
  std::string s = std::to_string(v);
// GCC 12 reports a false -Wrestrict inside std::string's inlined insert here (GCC bug
// 105651): the source and destination are distinct strings.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  return s;
}

}  // namespace

ProgressBar::ProgressBar(const QueryContext& query, bool enabled, int ranks)
    : query_(query), enabled_(enabled), ranks_(ranks), start_(std::chrono::steady_clock::now()) {
  if (!enabled_) return;
  tty_ = isatty(STDERR_FILENO) == 1;
  thread_ = std::thread([this] { loop(); });
}

std::string ProgressBar::render() const {
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  int64_t in = query_.rows_read.load(), out = query_.rows_out.load();
  std::string line = (ranks_ > 1 ? "[ember, " + std::to_string(ranks_) + " ranks] " : "[ember] ") +
                     with_commas(in) + " rows in, " + with_commas(out) + " out, " +
                     with_commas(secs > 0 ? static_cast<int64_t>(in / secs) : 0) +
                     " rows/s, partitions " + std::to_string(query_.partitions_done.load()) + "/" +
                     std::to_string(query_.partitions_total.load());
  // A resumable write that took over an earlier run's work says how much it kept.
  if (query_.partitions_resumed > 0 || query_.rows_resumed > 0)
    line += " (resumed: " + std::to_string(query_.partitions_resumed) + " partitions, " +
            with_commas(query_.rows_resumed) + " rows kept)";
  for (const auto& p : query_.pools()) {
    // Calls running out of the calls the pool can run at once (max_concurrency per actor).
    const int slots = p->num_actors() * std::max(1, p->spec().max_concurrency);
    line += " | " + p->spec().name + " " + std::to_string(p->busy_actors()) + "/" +
            std::to_string(slots) + " busy";
  }
  char t[32];
  std::snprintf(t, sizeof t, " | %.1fs", secs);
  return line + t;
}

void ProgressBar::loop() {
  auto period = tty_ ? std::chrono::milliseconds(200) : std::chrono::milliseconds(5000);
  std::unique_lock<std::mutex> lock(mu_);
  while (!cv_.wait_for(lock, period, [&] { return stop_; })) {
    std::string line = render();
    if (tty_)
      std::fprintf(stderr, "\r\033[K%s", line.c_str());
    else
      std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
  }
}

void ProgressBar::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  std::string line = render();
  std::fprintf(stderr, tty_ ? "\r\033[K%s\n" : "%s\n", line.c_str());
  std::fflush(stderr);
}

}  // namespace ember
