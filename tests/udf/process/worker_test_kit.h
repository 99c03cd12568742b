// What the process-isolation tests share: building a Process UdfSpec, temporary directories,
// and looking at processes (children, liveness) and /dev/shm from the outside.
#pragma once

#include <dirent.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ember/batch.h"
#include "ember/udf.h"
#include "udf/udf_spec.h"

extern char** environ;

namespace ember::test {

/// A stateful UdfSpec with process isolation for class T, registered as `class_name`.
template <class T>
std::shared_ptr<const UdfSpec> process_spec(std::string name, std::string class_name,
                                            DataType returns, InitArgs args = {},
                                            int max_retries = 0) {
  auto s = std::make_shared<UdfSpec>();
  s->name = std::move(name);
  s->stateful = true;
  s->factory = detail::make_factory<T>();
  s->class_name = std::move(class_name);
  s->return_type = returns;
  s->init_args = std::move(args);
  s->isolation = Isolation::Process;
  s->max_retries = max_retries;
  return s;
}

inline ActorContext actor_context(int id, std::vector<int> gpus = {}) {
  ActorContext c;
  c.actor_id = id;
  c.gpu_ids = std::move(gpus);
  c.num_cpus = 1;
  return c;
}

inline Batch int_batch(const std::vector<int64_t>& values, const std::string& name = "x") {
  return Batch(Schema({{name, int64()}}), {Column::from(values)});
}

/// A fresh directory, removed with everything in it at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ember-proc-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data()) ? tmpl : "";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Writes via a temporary name and a rename, so a reader never sees half a file.
inline void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  std::ofstream(tmp, std::ios::binary) << text;
  std::filesystem::rename(tmp, path);
}

/// Waits for `path` to exist, up to `limit`.
inline bool wait_for_file(const std::string& path,
                          std::chrono::milliseconds limit = std::chrono::seconds(60)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!std::filesystem::exists(path)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

/// Fields of /proc/<pid>/stat after the command name: state is [0], ppid is [1]. Empty when
/// the process does not exist.
inline std::vector<std::string> proc_stat(pid_t pid) {
  const std::string s = read_file("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = s.rfind(')');
  if (close == std::string::npos) return {};
  std::istringstream rest(s.substr(close + 1));
  std::vector<std::string> fields;
  for (std::string f; rest >> f;) fields.push_back(f);
  return fields;
}

/// Live (not zombie) processes whose parent is `parent`.
inline std::vector<pid_t> live_children(pid_t parent) {
  std::vector<pid_t> kids;
  DIR* d = ::opendir("/proc");
  if (d == nullptr) return kids;
  while (dirent* e = ::readdir(d)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
    if (pid <= 0) continue;
    const auto f = proc_stat(pid);
    if (f.size() > 1 && f[0] != "Z" && std::atoi(f[1].c_str()) == parent) kids.push_back(pid);
  }
  ::closedir(d);
  return kids;
}

/// Every process whose parent is `parent`, zombies included (a zombie is a missed reap).
inline std::vector<pid_t> all_children(pid_t parent) {
  std::vector<pid_t> kids;
  DIR* d = ::opendir("/proc");
  if (d == nullptr) return kids;
  while (dirent* e = ::readdir(d)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
    const auto f = pid > 0 ? proc_stat(pid) : std::vector<std::string>{};
    if (f.size() > 1 && std::atoi(f[1].c_str()) == parent) kids.push_back(pid);
  }
  ::closedir(d);
  return kids;
}

/// True once `pid` is gone or a zombie (dead, waiting for whoever adopted it to reap it).
inline bool process_dead(pid_t pid) {
  const auto f = proc_stat(pid);
  return f.empty() || f[0] == "Z" || f[0] == "X";
}

/// Entries of /dev/shm that ember could have made. Other programs on the machine create and
/// remove their own (Python's multiprocessing semaphores, say) while tests run, so only names
/// mentioning ember are compared.
inline std::set<std::string> shm_entries() {
  std::set<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/dev/shm", ec)) {
    const std::string name = e.path().filename().string();
    if (name.find("ember") != std::string::npos) names.insert(name);
  }
  return names;
}

/// Starts one disabled helper test of this binary in a child process with `env` added.
inline pid_t spawn_helper_test(const std::string& test,
                               const std::vector<std::pair<std::string, std::string>>& env) {
  std::vector<std::string> args = {"/proc/self/exe", "--gtest_filter=" + test,
                                   "--gtest_also_run_disabled_tests"};
  std::vector<std::string> vars;
  for (char** e = environ; *e != nullptr; ++e) vars.emplace_back(*e);
  for (const auto& [k, v] : env) vars.push_back(k + "=" + v);
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& v : vars) envp.push_back(v.data());
  envp.push_back(nullptr);
  pid_t pid = -1;
  if (::posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv.data(), envp.data()) != 0) {
    return -1;
  }
  return pid;
}

/// Runs a helper test to its end (each helper bounds its own waits) and returns its wait
/// status.
inline int run_helper_test(const std::string& test,
                           const std::vector<std::pair<std::string, std::string>>& env) {
  const pid_t pid = spawn_helper_test(test, env);
  int status = -1;
  if (pid > 0) ::waitpid(pid, &status, 0);
  return status;
}

}  // namespace ember::test
