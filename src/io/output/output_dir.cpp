// Checks on a query's output directory; see output_dir.h.
#include "io/output/output_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "ember/error.h"
#include "io/output/partition_writer.h"

namespace ember {
namespace {

namespace fs = std::filesystem;

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

/// True when `path` is `dir` or lies below it; both absolute, normal, with no trailing slash.
bool is_inside(const fs::path& path, const fs::path& dir) {
  return std::mismatch(dir.begin(), dir.end(), path.begin(), path.end()).first == dir.end();
}

void check_not_a_mount_point(const OutputDir& dir) {
  struct stat self {
  }, parent{};
  const std::string parent_path = fs::path(dir.path).parent_path().string();
  if (::stat(dir.path.c_str(), &self) != 0 || ::stat(parent_path.c_str(), &parent) != 0) {
    throw IoError("cannot stat output directory '" + dir.given + "': " + std::strerror(errno));
  }
  if (self.st_dev != parent.st_dev) {
    throw IoError("output directory '" + dir.given +
                  "' is a mount point, and ember replaces an output directory as a whole by "
                  "renaming, which a mount point does not allow; write to a directory inside it");
  }
}

void check_only_outputs_inside(const OutputDir& dir) {
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir.path, ec)) {
    const std::string name = e.path().filename().string();
    std::error_code type_ec;
    // A link or a directory is never ember's, whatever its name.
    if (is_output_file_name(name) && e.symlink_status(type_ec).type() == fs::file_type::regular)
      continue;
    throw InvalidArgument("output directory '" + dir.given + "' holds '" + name +
                          "', which ember did not write; a write replaces the whole directory "
                          "and would delete it. Move it away or write to another directory");
  }
  if (ec) throw IoError("cannot list output directory '" + dir.given + "': " + ec.message());
}

}  // namespace

OutputDir resolve_output_dir(const std::string& dir) {
  if (dir.empty()) throw IoError("empty output directory name");
  std::error_code ec;
  fs::path resolved = fs::absolute(dir, ec);
  if (!ec) resolved = fs::weakly_canonical(resolved, ec);
  if (ec) throw IoError("cannot resolve output directory '" + dir + "': " + ec.message());
  if (!resolved.has_filename()) resolved = resolved.parent_path();  // a trailing slash
  if (resolved == resolved.root_path()) {
    throw InvalidArgument("cannot write to the root directory ('" + dir +
                          "'): ember replaces an output directory as a whole; name a directory "
                          "inside it");
  }
  const fs::file_status link = fs::symlink_status(resolved, ec);
  const fs::file_status target = fs::status(resolved, ec);
  if (fs::is_symlink(link) && !fs::exists(target)) {
    throw IoError("output path '" + dir + "' is a symbolic link to nothing");
  }
  if (fs::exists(target) && !fs::is_directory(target)) {
    throw IoError("output path '" + dir + "' exists and is not a directory");
  }
  return OutputDir{dir, resolved.string(), fs::exists(target)};
}

bool is_output_file_name(std::string_view name) {
  if (name == "_SUCCESS" || is_part_file_name(name)) return true;
  // The temp file of a part being written (see AtomicFile).
  return starts_with(name, ".") && ends_with(name, ".tmp") &&
         is_part_file_name(name.substr(1, name.size() - 5));
}

void check_replaceable(const OutputDir& dir) {
  std::error_code ec;
  if (fs::equivalent(dir.path, fs::current_path(ec), ec)) {
    throw InvalidArgument("output directory '" + dir.given +
                          "' is the current working directory; a write replaces its output "
                          "directory as a whole, so name a directory inside it");
  }
  // Removing the old set after the swap needs write access to it; finding out only then would
  // leave it behind. (Creating the staging directory beside it tests the parent honestly.)
  if (::faccessat(AT_FDCWD, dir.path.c_str(), W_OK | X_OK, AT_EACCESS) != 0) {
    throw IoError("output directory '" + dir.given + "' is not writable: " + std::strerror(errno));
  }
  check_not_a_mount_point(dir);
  check_only_outputs_inside(dir);
}

void check_not_read_by_query(const OutputDir& dir, const std::vector<std::string>& inputs) {
  if (!dir.exists) return;  // nothing can be read from a directory that is not there
  for (const std::string& input : inputs) {
    std::error_code ec;
    const fs::path resolved = fs::weakly_canonical(fs::absolute(input, ec), ec);
    if (ec || !is_inside(resolved, dir.path)) continue;
    throw InvalidArgument("the query reads '" + input +
                          "', which lies inside its output directory '" + dir.given +
                          "'; a write replaces that directory as a whole and would destroy its "
                          "own input. Write to another directory");
  }
}

}  // namespace ember
