// This test binary run again as a child process, running one of its tests (chosen by a gtest
// filter), for tests that kill a real process in the middle of a job; and a guard that kills
// and reaps such a child however the test ends.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

extern char** environ;

namespace ember::test_support {

/// Starts /proc/self/exe running the tests `filter` names (disabled ones included: a child's
/// test is DISABLED_ so that a plain run skips it), with this process's environment plus `env`
/// ("NAME=value" each), its stdout and stderr into `log` (appended to when `append`, else
/// replacing it). Returns the child's pid, or -1 when it could not be started.
inline pid_t spawn_self(const std::string& filter, const std::vector<std::string>& env,
                        const std::string& log, bool append = false) {
  std::vector<std::string> environment;
  for (char** e = environ; *e != nullptr; ++e) environment.emplace_back(*e);
  environment.insert(environment.end(), env.begin(), env.end());
  std::vector<std::string> args = {"self", "--gtest_filter=" + filter,
                                   "--gtest_also_run_disabled_tests"};
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : environment) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(),
                                   O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

/// Kills (SIGKILL) and reaps the child `pid` however the test ends.
struct ChildGuard {
  explicit ChildGuard(pid_t child) : pid(child) {}
  ChildGuard(const ChildGuard&) = delete;
  ChildGuard& operator=(const ChildGuard&) = delete;
  ~ChildGuard() { kill_now(); }
  void kill_now() {
    if (pid <= 0) return;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    pid = -1;
  }
  pid_t pid;
  /// True once the child has exited (and reaps it).
  bool exited() const { return ::waitpid(pid, nullptr, WNOHANG) == pid; }
};

}  // namespace ember::test_support
