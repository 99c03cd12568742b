// Staging directory names, their owners, and removing what dead owners left; see staging_dir.h.
#include "io/output/staging_dir.h"

#include <signal.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string_view>
#include <vector>

namespace ember {
namespace {

namespace fs = std::filesystem;

// Room for ".", ".ember-retired-", a 64-byte host, a pid and 16 hex digits within 255 bytes.
constexpr size_t kMaxTargetChars = 140;

std::mutex& claims_mutex() {
  static std::mutex mu;
  return mu;
}

std::set<std::string>& claims() {
  static std::set<std::string> paths;
  return paths;
}

/// The host name, reduced to characters that are safe in a file name.
const std::string& this_host() {
  static const std::string host = [] {
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0) return std::string("localhost");
    std::string h(buf);
    for (char& c : h) {
      const bool safe = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-';
      if (!safe) c = '_';
    }
    return h.substr(0, 64);
  }();
  return host;
}

std::string prefix_of(const std::string& target_name) {
  return "." + target_name.substr(0, kMaxTargetChars) + ".ember-";
}

struct Owner {
  std::string host;
  pid_t pid = 0;
};

/// The owner named by `name`, when it is a staging or retired directory of the target whose
/// names start with `prefix`: `<prefix><role>-<host>-<pid>-<random>`, read from the right
/// because a host name may hold '-'.
std::optional<Owner> owner_of(std::string_view name, const std::string& prefix) {
  if (name.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::string_view rest = name.substr(prefix.size());
  for (std::string_view role : {"staging-", "retired-"}) {
    if (rest.substr(0, role.size()) == role) {
      rest.remove_prefix(role.size());
      const size_t random_dash = rest.rfind('-');
      if (random_dash == std::string_view::npos || random_dash == 0) return std::nullopt;
      const size_t pid_dash = rest.rfind('-', random_dash - 1);
      if (pid_dash == std::string_view::npos) return std::nullopt;
      Owner owner{std::string(rest.substr(0, pid_dash)), 0};
      const char* first = rest.data() + pid_dash + 1;
      const char* last = rest.data() + random_dash;
      auto [end, ec] = std::from_chars(first, last, owner.pid);
      if (ec != std::errc() || end != last || owner.pid <= 0) return std::nullopt;
      return owner;
    }
  }
  return std::nullopt;
}

bool is_dead(const Owner& owner, const std::string& path) {
  if (owner.host != this_host()) return false;
  if (owner.pid == ::getpid()) {
    std::lock_guard<std::mutex> lock(claims_mutex());
    return claims().count(path) == 0;
  }
  // EPERM: the pid runs under another user, so it is alive.
  return ::kill(owner.pid, 0) != 0 && errno == ESRCH;
}

}  // namespace

std::string staging_name(const std::string& target_name, StagingRole role) {
  static std::mutex mu;
  static std::mt19937_64 rng{std::random_device{}()};
  uint64_t random = 0;
  {
    std::lock_guard<std::mutex> lock(mu);
    random = rng();
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(random));
  return prefix_of(target_name) + (role == StagingRole::Staging ? "staging-" : "retired-") +
         this_host() + "-" + std::to_string(::getpid()) + "-" + hex;
}

std::string resume_staging_name(const std::string& target_name) {
  return prefix_of(target_name) + "resume";
}

void claim_staging(const std::string& path) {
  std::lock_guard<std::mutex> lock(claims_mutex());
  claims().insert(path);
}

void release_staging(const std::string& path) {
  std::lock_guard<std::mutex> lock(claims_mutex());
  claims().erase(path);
}

int remove_dead_staging(const std::string& parent, const std::string& target_name,
                        const std::function<void(const std::string&)>& before_removal) {
  const std::string prefix = prefix_of(target_name);
  std::vector<fs::path> dead;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(parent, ec)) {
    const std::optional<Owner> owner = owner_of(e.path().filename().string(), prefix);
    if (owner && is_dead(*owner, e.path().string())) dead.push_back(e.path());
  }
  int removed = 0;
  for (const fs::path& p : dead) {
    if (before_removal) before_removal(p.string());
    std::error_code rm;
    fs::remove_all(p, rm);
    if (!rm) ++removed;
  }
  return removed;
}

}  // namespace ember
