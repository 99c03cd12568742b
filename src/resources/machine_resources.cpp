// Detecting what this machine (or container) offers: CPUs, memory and GPU devices.
#include "resources/machine_resources.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include "ember/error.h"
#include "resources/resource_pool.h"

namespace ember {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> read_text(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

template <class T>
std::optional<T> parse_number(std::string_view s) {
  s = trim(s);
  T value{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return value;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

/// This process's cgroup path for a v1 `controller`, or for v2 when `controller` is empty.
std::optional<std::string> own_cgroup(std::string_view controller) {
  auto text = read_text("/proc/self/cgroup");
  if (!text) return std::nullopt;
  for (std::string_view line : split(*text, '\n')) {
    auto fields = split(line, ':');  // hierarchy-id:controllers:path
    if (fields.size() < 3) continue;
    std::string_view path = line.substr(fields[0].size() + fields[1].size() + 2);
    if (controller.empty() ? (fields[0] == "0" && fields[1].empty())
                           : std::ranges::count(split(fields[1], ','), controller) > 0)
      return std::string(path);
  }
  return std::nullopt;
}

/// Applies `read` to `file` in the process's cgroup and each ancestor up to `root` (a limit
/// set on an ancestor binds too) and returns the smallest value found. When the cgroup path
/// is not visible under `root` (a cgroup namespace), only `root` itself is read.
template <class Read>
std::optional<double> tightest_limit(const fs::path& root, const std::string& cgroup,
                                     const char* file, Read read) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return std::nullopt;
  fs::path rel = fs::path(cgroup).relative_path();
  fs::path dir = rel.empty() ? root : (root / rel).lexically_normal();
  if (!fs::is_directory(dir, ec)) dir = root;
  std::optional<double> best;
  for (;;) {
    if (auto text = read_text(dir / file))
      if (auto v = read(*text)) best = best ? std::min(*best, *v) : *v;
    if (dir == root) break;
    fs::path up = dir.parent_path();
    if (up == dir || up.native().size() < root.native().size()) break;
    dir = up;
  }
  return best;
}

std::optional<double> cgroup_cpu_quota() {
  std::optional<double> best;
  auto keep = [&](std::optional<double> v) {
    if (v) best = best ? std::min(*best, *v) : *v;
  };
  if (auto v2 = own_cgroup(""); v2 && fs::exists("/sys/fs/cgroup/cgroup.controllers")) {
    keep(tightest_limit("/sys/fs/cgroup", *v2, "cpu.max",
                        [](const std::string& text) -> std::optional<double> {
                          auto parts = split(trim(text), ' ');  // "max 100000" | "quota period"
                          if (parts.size() != 2) return std::nullopt;
                          auto quota = parse_number<double>(parts[0]);
                          auto period = parse_number<double>(parts[1]);
                          if (!quota || !period || *period <= 0) return std::nullopt;
                          return *quota / *period;
                        }));
  }
  if (auto v1 = own_cgroup("cpu")) {
    for (const char* root : {"/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu"}) {
      if (!fs::exists(root)) continue;
      auto period = tightest_limit(root, *v1, "cpu.cfs_period_us",
                                   [](const std::string& t) { return parse_number<double>(t); });
      auto quota = tightest_limit(root, *v1, "cpu.cfs_quota_us",
                                  [](const std::string& t) -> std::optional<double> {
                                    auto q = parse_number<double>(t);  // -1 means no limit
                                    return q && *q > 0 ? q : std::nullopt;
                                  });
      if (quota && period && *period > 0) keep(*quota / *period);
      break;
    }
  }
  return best;
}

std::optional<double> cgroup_memory_limit() {
  std::optional<double> best;
  auto keep = [&](std::optional<double> v) {
    if (v) best = best ? std::min(*best, *v) : *v;
  };
  auto number = [](const std::string& t) { return parse_number<double>(t); };  // "max" -> none
  if (auto v2 = own_cgroup(""); v2 && fs::exists("/sys/fs/cgroup/cgroup.controllers"))
    keep(tightest_limit("/sys/fs/cgroup", *v2, "memory.max", number));
  if (auto v1 = own_cgroup("memory"); v1 && fs::exists("/sys/fs/cgroup/memory"))
    keep(tightest_limit("/sys/fs/cgroup/memory", *v1, "memory.limit_in_bytes", number));
  return best;
}

std::optional<int64_t> meminfo_total() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  int64_t value = 0;
  while (in >> key >> value >> unit)
    if (key == "MemTotal:") return value * 1024;  // reported in kB
  return std::nullopt;
}

/// Whether `name` is an executable file in some directory of $PATH.
bool on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path) return false;
  for (std::string_view dir : split(path, ':'))
    if (!dir.empty() && ::access((std::string(dir) + "/" + name).c_str(), X_OK) == 0) return true;
  return false;
}

std::vector<int> nvidia_smi_devices() {
  if (!on_path("nvidia-smi")) return {};
  // A wedged driver can make nvidia-smi hang; detection must not.
  std::string cmd =
      on_path("timeout") ? "timeout 10 nvidia-smi -L 2>/dev/null" : "nvidia-smi -L 2>/dev/null";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) return {};
  std::vector<int> ids;
  char line[512];
  while (std::fgets(line, sizeof line, pipe))
    if (std::string_view(line).starts_with("GPU ")) ids.push_back(static_cast<int>(ids.size()));
  ::pclose(pipe);
  return ids;
}

}  // namespace

std::vector<int> parse_ember_gpus(std::string_view text) {
  text = trim(text);
  if (text.empty()) return {};
  auto fail = [&]() -> std::vector<int> {
    throw InvalidArgument("EMBER_GPUS='" + std::string(text) +
                          "' is neither a GPU count (e.g. \"4\", at most " +
                          std::to_string(ResourcePool::kMaxGpus) +
                          ") nor a list of distinct device ids (e.g. \"0,2\", or \"3,\" for "
                          "device 3 alone)");
  };
  if (text.find(',') == std::string_view::npos) {
    auto count = parse_number<int>(text);
    // Checked before the ids are allocated: "2000000000" would take gigabytes.
    if (!count || *count < 0 || *count > ResourcePool::kMaxGpus) return fail();
    std::vector<int> ids(static_cast<size_t>(*count));
    for (int i = 0; i < *count; ++i) ids[static_cast<size_t>(i)] = i;
    return ids;
  }
  // A trailing comma makes one id a list: "3," is device 3, where "3" is three GPUs.
  if (text.ends_with(',')) text.remove_suffix(1);
  std::vector<int> ids;
  for (std::string_view part : split(text, ',')) {
    auto id = parse_number<int>(part);
    if (!id || *id < 0 || std::ranges::count(ids, *id) > 0) return fail();
    ids.push_back(*id);
  }
  return ids;
}

std::vector<int> parse_cuda_visible_devices(std::string_view text) {
  std::vector<int> ids;
  if (trim(text).empty()) return ids;
  for (std::string_view part : split(text, ',')) {
    part = trim(part);
    auto id = parse_number<int>(part);
    if (part.empty() || (id && *id < 0)) break;
    ids.push_back(static_cast<int>(ids.size()));
  }
  return ids;
}

double parse_ember_cpus(std::string_view text) {
  const auto cpus = parse_number<double>(trim(text));
  if (!cpus || !std::isfinite(*cpus) || *cpus <= 0 || *cpus > ResourcePool::kMaxCpus) {
    throw InvalidArgument("EMBER_CPUS='" + std::string(text) +
                          "' is not a CPU count (a number > 0 and at most 1000000, e.g. \"4\" "
                          "or \"2.5\")");
  }
  return *cpus;
}

int64_t parse_ember_memory(std::string_view text) {
  text = trim(text);
  static constexpr std::pair<std::string_view, int64_t> kUnits[] = {
      {"GiB", int64_t{1} << 30}, {"MiB", int64_t{1} << 20}, {"KiB", int64_t{1} << 10},
      {"G", int64_t{1} << 30},   {"M", int64_t{1} << 20},   {"K", int64_t{1} << 10}};
  int64_t unit = 1;
  for (const auto& [suffix, bytes] : kUnits) {
    if (text.ends_with(suffix)) {
      text.remove_suffix(suffix.size());
      unit = bytes;
      break;
    }
  }
  const auto amount = parse_number<int64_t>(trim(text));
  if (!amount || *amount < 0 || *amount > std::numeric_limits<int64_t>::max() / unit) {
    throw InvalidArgument("EMBER_MEMORY='" + std::string(text) +
                          "' is not an amount of memory (bytes, or a whole number with K, M, G, "
                          "KiB, MiB or GiB, e.g. \"8G\")");
  }
  return *amount * unit;
}

double detect_cpus() {
  // Set by hand (or by a test that fakes a smaller or larger node): it wins over detection.
  if (const char* text = std::getenv("EMBER_CPUS")) return parse_ember_cpus(text);
  double cpus = static_cast<double>(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN)));
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) cpus = std::max(1, CPU_COUNT(&set));
  if (auto quota = cgroup_cpu_quota()) cpus = std::min(cpus, *quota);
  // A fractional quota below one CPU still runs one actor (slowly) rather than none.
  return std::max(1.0, cpus);
}

int64_t detect_memory_bytes() {
  if (const char* text = std::getenv("EMBER_MEMORY")) return parse_ember_memory(text);
  auto total = meminfo_total();
  auto limit = cgroup_memory_limit();
  // An unlimited v1 cgroup reports a huge number; the physical memory is the real bound.
  if (limit && *limit > 0 && (!total || *limit < static_cast<double>(*total)))
    return static_cast<int64_t>(*limit);
  if (total) return *total;
  return static_cast<int64_t>(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGESIZE);
}

std::vector<int> detect_gpu_ids() {
  if (const char* ember = std::getenv("EMBER_GPUS")) return parse_ember_gpus(ember);
  if (const char* cuda = std::getenv("CUDA_VISIBLE_DEVICES"))
    return parse_cuda_visible_devices(cuda);
  return nvidia_smi_devices();
}

std::string describe_gpu_source() {
  std::string ids;
  auto list = [&](const std::vector<int>& v) {
    std::string out;
    for (int id : v) out += (out.empty() ? "" : ",") + std::to_string(id);
    return out.empty() ? std::string("none") : out;
  };
  if (const char* ember = std::getenv("EMBER_GPUS")) {
    const std::string_view text = trim(ember);
    const std::vector<int> v = parse_ember_gpus(text);
    if (text.find(',') == std::string_view::npos)
      return "EMBER_GPUS=" + std::string(text) + " is a count: devices " + list(v) +
             " (a list of device ids has a comma: \"0,2\", or \"3,\" for device 3 alone)";
    return "EMBER_GPUS=" + std::string(text) + " is a list of device ids: " + list(v);
  }
  if (const char* cuda = std::getenv("CUDA_VISIBLE_DEVICES"))
    return "CUDA_VISIBLE_DEVICES=" + std::string(cuda) + " is a list of devices, " +
           std::to_string(parse_cuda_visible_devices(cuda).size()) +
           " visible (CUDA numbers them from 0 inside the process)";
  return "GPUs counted by nvidia-smi -L (EMBER_GPUS takes a count, \"2\", or device ids, "
         "\"0,2\")";
}

MachineResources detect_machine() {
  MachineResources m;
  m.gpu_ids = detect_gpu_ids();
  m.total = Resources{detect_cpus(), static_cast<int>(m.gpu_ids.size()), detect_memory_bytes()};
  return m;
}

}  // namespace ember
