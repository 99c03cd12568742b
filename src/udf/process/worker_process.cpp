// fork + exec of worker processes, with every descriptor close-on-exec except the three stdio
// pipes and the control socket, and reaping with a deadline.
#include "udf/process/worker_process.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include "ember/error.h"

extern char** environ;

namespace ember::process {

namespace {

[[noreturn]] void fail(const std::string& what) {
  throw UdfError("process isolation: could not start a worker process: " + what + ": " +
                 std::strerror(errno));
}

/// The worker's environment: the driver's, with `overrides` replacing or adding variables.
std::vector<std::string> worker_environment(
    const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const std::string_view key = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& o : overrides) replaced = replaced || key == o.first;
    if (!replaced) env.emplace_back(entry);
  }
  for (const auto& [k, v] : overrides) env.push_back(k + "=" + v);
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> p;
  for (auto& s : strings) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

/// Descriptors the child puts at 0, 1, 2 and kWorkerFd.
struct ChildFds {
  int in, out, err, control;
};

/// Runs in the forked child: only async-signal-safe calls, since another thread of the parent
/// may have held a lock (malloc's, say) at the moment of fork.
[[noreturn]] void become_worker(pid_t parent, ChildFds fds, char** argv, char** envp) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  // Die with the driver; and if it already died before prctl took effect, go now.
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(126);
  // Move everything above kWorkerFd first, so the dup2s below cannot clobber a source.
  const int in = fcntl(fds.in, F_DUPFD_CLOEXEC, kWorkerFd + 1);
  const int out = fcntl(fds.out, F_DUPFD_CLOEXEC, kWorkerFd + 1);
  const int err = fcntl(fds.err, F_DUPFD_CLOEXEC, kWorkerFd + 1);
  const int control = fcntl(fds.control, F_DUPFD_CLOEXEC, kWorkerFd + 1);
  if (in < 0 || out < 0 || err < 0 || control < 0) _exit(126);
  // dup2 leaves the new descriptors inheritable; everything else stays close-on-exec.
  if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0 || dup2(control, kWorkerFd) < 0) {
    _exit(126);
  }
  execve("/proc/self/exe", argv, envp);
  _exit(127);
}

}  // namespace

std::unique_ptr<WorkerProcess> WorkerProcess::spawn(const WorkerLaunch& launch) {
  int sv[2], out[2], err[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) fail("socketpair");
  UniqueFd driver_end(sv[0]), worker_end(sv[1]);
  if (::pipe2(out, O_CLOEXEC) != 0) fail("pipe2");
  UniqueFd out_r(out[0]), out_w(out[1]);
  if (::pipe2(err, O_CLOEXEC) != 0) fail("pipe2");
  UniqueFd err_r(err[0]), err_w(err[1]);
  UniqueFd null_in(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!null_in) fail("open /dev/null");

  auto env_overrides = launch.env;
  env_overrides.emplace_back(kWorkerFdVariable, std::to_string(kWorkerFd));
  std::vector<std::string> env = worker_environment(env_overrides);
  std::vector<std::string> args = launch.argv;
  if (args.empty()) args.emplace_back("ember-worker");
  std::vector<char*> envp = pointers(env), argv = pointers(args);

  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) fail("fork");
  if (pid == 0) {
    become_worker(parent, {null_in.get(), out_w.get(), err_w.get(), worker_end.get()}, argv.data(),
                  envp.data());
  }
  std::unique_ptr<WorkerProcess> w(new WorkerProcess());
  w->pid_ = pid;
  w->channel_ = ControlChannel(std::move(driver_end));
  // The worker's ends close here, so that its death reads as end-of-file at once.
  worker_end.reset();
  out_w.reset();
  err_w.reset();
  try {
    w->relay_ =
        std::make_unique<OutputRelay>(launch.output_prefix, std::move(out_r), std::move(err_r));
  } catch (...) {
    w->reap(std::chrono::milliseconds(0));
    throw;
  }
  return w;
}

WorkerProcess::~WorkerProcess() { reap(std::chrono::milliseconds(0)); }

namespace {

/// Polls waitpid until `deadline`, backing off from 50 µs to 5 ms: only exit and crash paths
/// get here, never the per-batch path.
bool wait_until(pid_t pid, std::chrono::steady_clock::time_point deadline,
                std::optional<int>* status) {
  auto pause = std::chrono::microseconds(50);
  for (;;) {
    int st = 0;
    const pid_t r = ::waitpid(pid, &st, WNOHANG);
    if (r == pid) {
      *status = st;
      return true;
    }
    if (r < 0 && errno != EINTR) return true;  // ECHILD: already reaped (SIGCHLD ignored)
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(5000));
  }
}

}  // namespace

std::optional<int> WorkerProcess::reap(std::chrono::milliseconds grace) {
  if (reaped_ || pid_ <= 0) return status_;
  using Clock = std::chrono::steady_clock;
  if (!wait_until(pid_, Clock::now() + grace, &status_)) {
    ::kill(pid_, SIGKILL);
    // SIGKILL cannot be caught; the bound only guards against a process stuck in the kernel.
    wait_until(pid_, Clock::now() + std::chrono::seconds(10), &status_);
  }
  reaped_ = true;
  if (relay_) relay_->finish();
  return status_;
}

std::string describe_exit(std::optional<int> st) {
  if (!st) return "ended (its exit status could not be collected)";
  if (WIFSIGNALED(*st)) {
    const int sig = WTERMSIG(*st);
    const char* abbrev = sigabbrev_np(sig);
    std::string s = "was killed by signal " + std::to_string(sig) + " (" +
                    (abbrev ? "SIG" + std::string(abbrev) : std::string("unknown")) + ")";
    if (sig == SIGKILL) s += ", sent from outside (kill -9, or the kernel's out-of-memory killer)";
    return s;
  }
  if (WIFEXITED(*st)) return "exited with status " + std::to_string(WEXITSTATUS(*st));
  return "ended with wait status " + std::to_string(*st);
}

}  // namespace ember::process
