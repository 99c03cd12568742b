// The guard process of a write's multipart uploads: started by fork + exec of this program, it
// reads the target from a socket, then waits for the writer's word or the socket's end.
#include "io/output/upload_guard.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "io/output/object_store_output.h"
#include "io/output/part_uploads.h"

extern char** environ;

namespace ember {
namespace {

/// Where the guard finds its socket.
constexpr int kGuardFd = 3;
/// What the writer sends once it has ended its uploads.
constexpr char kReleased = 'R';

struct GuardCommand {
  std::mutex mu;
  std::optional<std::vector<std::string>> argv;
};

GuardCommand& command() {
  static GuardCommand c;
  return c;
}

bool send_all(int fd, const std::string& bytes) {
  for (size_t sent = 0; sent < bytes.size();) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

bool read_all(int fd, char* out, size_t size) {
  for (size_t got = 0; got < size;) {
    const ssize_t n = ::read(fd, out + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    got += static_cast<size_t>(n);
  }
  return true;
}

void put_field(std::string& out, const std::string& field) {
  const auto size = static_cast<uint32_t>(field.size());
  out.append(reinterpret_cast<const char*>(&size), sizeof size);
  out += field;
}

bool get_field(int fd, std::string& field) {
  uint32_t size = 0;
  if (!read_all(fd, reinterpret_cast<char*>(&size), sizeof size) || size > (1u << 20)) return false;
  field.resize(size);
  return read_all(fd, field.data(), size);
}

/// The target and the staging directory, as the guard reads them.
std::string describe(const ObjectStoreTarget& t, const std::string& dir) {
  std::string out;
  for (const std::string* f :
       {&t.config.endpoint, &t.config.region, &t.config.access_key_id, &t.config.secret_access_key,
        &t.config.session_token, &t.bucket, &t.prefix, &dir})
    put_field(out, *f);
  put_field(out, t.config.path_style ? "1" : "0");
  return out;
}

/// The guard's socket, or -1 when the variable names none (a stray variable must not turn a
/// program into a guard).
int inherited_socket(const char* text) {
  char* end = nullptr;
  const long fd = std::strtol(text, &end, 10);
  struct stat st {};
  if (end == text || *end != '\0' || fd < 0 || fd >= (1 << 20) ||
      ::fstat(static_cast<int>(fd), &st) != 0 || !S_ISSOCK(st.st_mode))
    return -1;
  return static_cast<int>(fd);
}

}  // namespace

void set_upload_guard_command(std::vector<std::string> argv) {
  std::lock_guard lock(command().mu);
  command().argv = std::move(argv);
}

void serve_upload_guard_if_asked() {
  const char* text = std::getenv(kUploadGuardFdVariable);
  if (text == nullptr) return;
  const int fd = inherited_socket(text);
  if (fd < 0) {
    std::fprintf(stderr,
                 "ember: ignoring %s=%s: it is set only in the guard process of a write to an "
                 "object store, and no such socket is open here\n",
                 kUploadGuardFdVariable, text);
    ::unsetenv(kUploadGuardFdVariable);
    return;
  }
  ::unsetenv(kUploadGuardFdVariable);
  // The writer decides what stops: a terminal's Ctrl-C or hang-up is not for the guard.
  ::signal(SIGINT, SIG_IGN);
  ::signal(SIGHUP, SIG_IGN);
  ObjectStoreTarget target;
  std::string dir, path_style;
  for (std::string* f :
       {&target.config.endpoint, &target.config.region, &target.config.access_key_id,
        &target.config.secret_access_key, &target.config.session_token, &target.bucket,
        &target.prefix, &dir, &path_style})
    if (!get_field(fd, *f)) ::_exit(0);  // the writer went before it said what to guard
  target.config.path_style = path_style == "1";
  char word = 0;
  ssize_t n;
  do {
    n = ::read(fd, &word, 1);
  } while (n < 0 && errno == EINTR);
  if (n == 1 && word == kReleased) ::_exit(0);
  // The writer ended without ending its uploads: killed, or crashed.
  abort_listed_uploads(dir, target);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  ::_exit(0);
}

std::unique_ptr<UploadGuard> UploadGuard::start(const ObjectStoreTarget& target,
                                                const std::string& dir) {
  std::vector<std::string> args;
  {
    std::lock_guard lock(command().mu);
    if (!command().argv || command().argv->empty()) return nullptr;
    args = *command().argv;
  }
  // Everything the child needs is made before the fork: after it, only async-signal-safe calls.
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e)
    if (std::string(*e).rfind(std::string(kUploadGuardFdVariable) + "=", 0) != 0)
      env.emplace_back(*e);
  env.push_back(std::string(kUploadGuardFdVariable) + "=" + std::to_string(kGuardFd));
  std::vector<char*> argv, envp;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return nullptr;
  const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  const pid_t pid = null < 0 ? -1 : ::fork();
  if (pid == 0) {
    // Its own session: a signal to the writer's process group (Ctrl-C) does not reach it.
    ::setsid();
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    // dup2 leaves the new descriptors inheritable; every other one is close-on-exec.
    const int guard = ::fcntl(sv[1], F_DUPFD_CLOEXEC, kGuardFd + 1);
    // No stdio: a guard that outlives its writer must not hold the pipes its output went to.
    if (guard < 0 || ::dup2(null, 0) < 0 || ::dup2(null, 1) < 0 || ::dup2(null, 2) < 0 ||
        ::dup2(guard, kGuardFd) < 0)
      ::_exit(126);
    ::execve("/proc/self/exe", argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(sv[1]);
  if (null >= 0) ::close(null);
  if (pid < 0) {
    ::close(sv[0]);
    return nullptr;
  }
  std::unique_ptr<UploadGuard> guard(new UploadGuard(pid, sv[0]));
  if (send_all(sv[0], describe(target, dir))) return guard;
  return nullptr;  // it died already: reaped as `guard` goes
}

UploadGuard::~UploadGuard() { release(); }

void UploadGuard::release() noexcept {
  if (fd_ < 0) return;
  send_all(fd_, std::string(1, kReleased));
  ::close(fd_);
  fd_ = -1;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) != 0) return;  // gone, and reaped
  // Still starting (a short write ends before its guard is up): reaped once it has read the
  // word and exited, without holding up the commit.
  try {
    std::thread([pid = pid_] {
      int st = 0;
      while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
      }
    }).detach();
  } catch (...) {
    // No thread: it stays a zombie until this process exits.
  }
}

}  // namespace ember
