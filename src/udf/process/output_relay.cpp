// Line-prefixing relay of worker output.
#include "udf/process/output_relay.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

#include "ember/error.h"

namespace ember::process {

namespace {

/// Lines of different workers (and relays) must not interleave mid-line in the driver's stderr.
std::mutex& sink_mutex() {
  static std::mutex m;
  return m;
}

void write_all(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the driver's stderr is gone: output is lost, the work is not
    done += static_cast<size_t>(n);
  }
}

/// One stream's partial line and where its lines go.
struct LineBuffer {
  const std::string* prefix;
  int sink;
  std::string pending;
  std::string line;  ///< reused for prefix + text + newline

  void emit(const char* p, size_t n) {
    line.assign(*prefix);
    line.append(p, n);
    line.push_back('\n');
    std::lock_guard lock(sink_mutex());
    write_all(sink, line);
  }
  void add(const char* p, size_t n) {
    pending.append(p, n);
    size_t start = 0;
    for (;;) {
      const void* nl = std::memchr(pending.data() + start, '\n', pending.size() - start);
      const size_t end =
          nl ? static_cast<size_t>(static_cast<const char*>(nl) - pending.data()) : pending.size();
      if (nl == nullptr && end - start < OutputRelay::kMaxLineBytes) break;
      const size_t len = std::min(end - start, OutputRelay::kMaxLineBytes);
      emit(pending.data() + start, len);
      start += len + (nl != nullptr && len == end - start ? 1 : 0);
    }
    pending.erase(0, start);
  }
  void flush() {
    if (!pending.empty()) emit(pending.data(), pending.size());
    pending.clear();
  }
};

/// Reads what is available now. Returns false at end of file (or on an error).
bool pump(int fd, LineBuffer& lines, char* chunk, size_t chunk_size) {
  for (;;) {
    const ssize_t n = ::read(fd, chunk, chunk_size);
    if (n > 0) {
      lines.add(chunk, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && errno == EAGAIN;
  }
}

}  // namespace

OutputRelay::OutputRelay(std::string prefix, UniqueFd out, UniqueFd err, int sink)
    : prefix_(std::move(prefix)), out_(std::move(out)), err_(std::move(err)), sink_(sink) {
  wake_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!wake_)
    throw Error(std::string("process isolation: eventfd failed: ") + std::strerror(errno));
  for (int fd : {out_.get(), err_.get()}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  thread_ = std::thread([this] { run(); });
}

OutputRelay::~OutputRelay() { finish(); }

void OutputRelay::finish() {
  if (!thread_.joinable()) return;
  const uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(wake_.get(), &one, sizeof(one));
  thread_.join();
}

void OutputRelay::run() {
  LineBuffer streams[2] = {{&prefix_, sink_, {}, {}}, {&prefix_, sink_, {}, {}}};
  const int fds[2] = {out_.get(), err_.get()};
  bool open[2] = {true, true};
  std::string chunk(kMaxLineBytes, '\0');
  bool stopping = false;
  while ((open[0] || open[1]) && !stopping) {
    pollfd p[3] = {{open[0] ? fds[0] : -1, POLLIN, 0},
                   {open[1] ? fds[1] : -1, POLLIN, 0},
                   {wake_.get(), POLLIN, 0}};
    if (::poll(p, 3, -1) < 0 && errno != EINTR) break;
    stopping = p[2].revents != 0;
    for (int i = 0; i < 2; ++i) {
      // After a stop request, drain every open pipe once: the worker has exited, so whatever
      // it wrote is already there.
      if (open[i] && (p[i].revents || stopping)) {
        open[i] = pump(fds[i], streams[i], chunk.data(), chunk.size());
      }
    }
  }
  for (auto& s : streams) s.flush();
}

}  // namespace ember::process
