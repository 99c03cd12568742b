// Spill files: columns as exec/relational/column_codec.h writes them, so that reading back is
// one read per buffer and no parsing.
#include "exec/relational/spill_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#include "ember/error.h"
#include "exec/relational/column_codec.h"

namespace ember {

namespace {

std::atomic<int64_t> g_open{0};
std::atomic<int64_t> g_created{0};

/// A read-write file in `dir` that has no name, so the kernel frees its bytes when it closes,
/// however the process ends (a SIGKILL or an out-of-memory kill included); `shown` says what
/// it is, for messages. O_TMPFILE makes it nameless from the start. Where the file system
/// cannot (EOPNOTSUPP, or EISDIR from a kernel without it), mkstemp and an unlink right after
/// leave a window of a few microseconds in which a kill would leave the name behind.
int open_nameless(const std::filesystem::path& dir, std::string& shown) {
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) {
    shown = "an unnamed spill file in " + dir.string();
    return fd;
  }
  if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
    throw IoError("cannot create a spill file in " + dir.string() + ": " + std::strerror(errno));
  std::string templ = (dir / "ember-spill-XXXXXX").string();
  fd = ::mkostemp(templ.data(), O_CLOEXEC);
  if (fd < 0)
    throw IoError("cannot create a spill file in " + dir.string() + ": " + std::strerror(errno));
  ::unlink(templ.c_str());
  shown = "spill file " + templ;
  return fd;
}

}  // namespace

SpillFile::SpillFile() {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) dir = "/tmp";
  const int fd = open_nameless(dir, path_);
  file_ = ::fdopen(fd, "w+b");
  if (!file_) {
    ::close(fd);
    throw IoError("cannot open " + path_ + ": " + std::strerror(errno));
  }
  ++g_open;
  ++g_created;
}

SpillFile::~SpillFile() {
  std::fclose(file_);
  --g_open;
}

int64_t SpillFile::files_open() { return g_open.load(); }
int64_t SpillFile::files_created() { return g_created.load(); }

void SpillFile::put(const void* data, size_t n) {
  if (n == 0) return;
  if (std::fwrite(data, 1, n, file_) != n)
    throw IoError("cannot write " + path_ + " (disk full?): " + std::strerror(errno));
  bytes_ += static_cast<int64_t>(n);
}

void SpillFile::get(void* data, size_t n) {
  if (n == 0) return;
  if (std::fread(data, 1, n, file_) != n)
    throw IoError(path_ + " ended early: it was changed while the query ran");
}

void SpillFile::write(const std::vector<Column>& columns) {
  // A slice of a larger column is copied out first, so that only its own rows are written.
  for (const Column& c : columns) put_column(compacted(c));
  ++groups_;
}

void SpillFile::put_column(const Column& c) {
  ember::put_column(c, [this](const void* data, size_t n) { put(data, n); });
}

Column SpillFile::get_column(const DataType& type) {
  return ember::get_column(type, [this](void* data, size_t n) { get(data, n); });
}

void SpillFile::rewind() {
  if (std::fflush(file_) != 0 || std::fseek(file_, 0, SEEK_SET) != 0)
    throw IoError("cannot rewind " + path_ + ": " + std::strerror(errno));
}

std::optional<std::vector<Column>> SpillFile::read_next(const std::vector<DataType>& types) {
  if (groups_read_ < 0) {
    rewind();
    groups_read_ = 0;
  }
  if (groups_read_ == groups_) return std::nullopt;
  std::vector<Column> columns;
  for (const DataType& type : types) columns.push_back(get_column(type));
  ++groups_read_;
  return columns;
}

std::vector<std::vector<Column>> SpillFile::read_all(const std::vector<DataType>& types) {
  rewind();
  std::vector<std::vector<Column>> groups;
  for (int64_t g = 0; g < groups_; ++g) {
    std::vector<Column> columns;
    for (const DataType& type : types) columns.push_back(get_column(type));
    groups.push_back(std::move(columns));
  }
  return groups;
}

}  // namespace ember
