// Counting processes and descriptors through /proc.
#include "process_census.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <thread>

namespace ember::soak {
namespace {

namespace fs = std::filesystem;

/// The state letter of /proc/<pid>/stat (after the parenthesised command name), '?' if gone.
char process_state(const fs::path& proc_dir) {
  std::ifstream in(proc_dir / "stat");
  std::string stat;
  std::getline(in, stat);
  const size_t close = stat.rfind(')');
  return close == std::string::npos || close + 2 >= stat.size() ? '?' : stat[close + 2];
}

}  // namespace

int live_sibling_processes() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const std::string me = std::to_string(::getpid());
  int count = 0;
  for (const fs::directory_entry& e : fs::directory_iterator("/proc", ec)) {
    const std::string pid = e.path().filename().string();
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos || pid == me) {
      continue;
    }
    std::error_code link_ec;
    if (fs::read_symlink(e.path() / "exe", link_ec) != self || link_ec) continue;
    const char state = process_state(e.path());
    if (state != 'Z' && state != 'X' && state != '?') ++count;
  }
  return count;
}

int open_descriptors() {
  std::error_code ec;
  int n = 0;
  for (auto it = fs::directory_iterator("/proc/self/fd", ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    ++n;
  }
  return n - 1;  // the iterator's own descriptor
}

std::string leftovers(int baseline_fds, int grace_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(grace_ms);
  for (;;) {
    const int procs = live_sibling_processes();
    const int fds = open_descriptors();
    if (procs == 0 && fds <= baseline_fds) return "";
    if (std::chrono::steady_clock::now() >= deadline) {
      return std::to_string(procs) + " worker process(es) alive, " + std::to_string(fds) +
             " descriptors open (baseline " + std::to_string(baseline_fds) + ")";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace ember::soak
