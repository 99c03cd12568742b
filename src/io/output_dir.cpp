// prepare_output_dir: creates and checks an output directory and clears stale part files.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "ember/error.h"
#include "io/partition_writer.h"

namespace ember {
namespace {

namespace fs = std::filesystem;

/// Creating a file is the only honest writability test: access(2) says yes to root even on a
/// read-only mount or a directory whose mode forbids writing.
void check_writable(const std::string& dir) {
  const std::string probe = dir + "/.ember-write-probe-" + std::to_string(::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw IoError("output directory '" + dir + "' is not writable: " + std::strerror(errno));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

bool is_stale_part(const std::string& name, const std::string& ext) {
  auto starts = [&](std::string_view p) { return name.rfind(p, 0) == 0; };
  auto ends = [&](std::string_view s) {
    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  return (starts("part-") && ends("." + ext)) || (starts(".part-") && ends("." + ext + ".tmp"));
}

}  // namespace

void prepare_output_dir(const std::string& dir, FileFormat format) {
  if (dir.empty()) throw IoError("empty output directory name");
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    throw IoError("output path '" + dir + "' exists and is not a directory");
  }
  fs::create_directories(dir, ec);
  if (ec) throw IoError("cannot create output directory '" + dir + "': " + ec.message());
  if (!fs::is_directory(dir, ec)) {
    throw IoError("output path '" + dir + "' exists and is not a directory");
  }
  check_writable(dir);
  // A rerun with fewer partitions must not leave part files of the previous run behind.
  const std::string ext = format == FileFormat::Csv ? "csv" : "jsonl";
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (!is_stale_part(name, ext)) continue;
    std::error_code rm;
    fs::remove(e.path(), rm);
    if (rm) throw IoError("cannot remove stale output '" + e.path().string() + "': " + rm.message());
  }
  if (ec) throw IoError("cannot list output directory '" + dir + "': " + ec.message());
}

}  // namespace ember
