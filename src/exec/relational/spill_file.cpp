// Spill files: a small header per column (length, null count, offset, buffer sizes) followed by
// the buffers' bytes, so that reading back is one read per buffer and no parsing.
#include "exec/relational/spill_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#include "core/buffer_access.h"
#include "ember/error.h"

namespace ember {

namespace {

std::atomic<int64_t> g_open{0};
std::atomic<int64_t> g_created{0};

constexpr int64_t kAbsent = -1;  ///< a buffer the column does not have

int64_t size_of(const std::shared_ptr<Buffer>& b) { return b ? b->size() : kAbsent; }

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

namespace {

/// Bytes the column's buffers hold, its list items' included: more than byte_size() when the
/// column is a slice of a larger one.
int64_t held_bytes(const Column& c) {
  int64_t held = 0;
  for (const auto* b : {&c.validity_buffer(), &c.values_buffer(), &c.data_buffer()})
    if (*b) held += (*b)->size();
  if (c.type().is_list()) return held + held_bytes(c.child());
  for (const Column& child : c.children()) held += held_bytes(child);
  return held;
}

/// The column with buffers of its own rows only. (Concatenating a column with nothing copies
/// it; Column::concat of one part would share it. A nested column is copied row by row: concat
/// would still share a list's items or a struct field's buffers when only one part has rows.)
Column compacted(const Column& c) {
  if (c.offset() == 0 && held_bytes(c) <= c.byte_size() + 256) return c;
  if (!c.type().is_nested()) return Column::concat({c, c.slice(0, 0)});
  ColumnBuilder copy(c.type(), c.size());
  for (int64_t i = 0; i < c.size(); ++i) copy.append_from(c, i);
  return copy.finish();
}

}  // namespace

void SpillFile::write(const std::vector<Column>& columns) {
  // A slice of a larger column is copied out first, so that only its own rows are written.
  for (const Column& c : columns) put_column(compacted(c));
  ++groups_;
}

void SpillFile::put_column(const Column& c) {
  const int64_t head[6] = {c.size(),
                           c.null_count(),
                           c.offset(),
                           size_of(c.validity_buffer()),
                           size_of(c.values_buffer()),
                           size_of(c.data_buffer())};
  put(head, sizeof head);
  for (const auto* b : {&c.validity_buffer(), &c.values_buffer(), &c.data_buffer()})
    if (*b) put((*b)->data(), static_cast<size_t>((*b)->size()));
  // A list's (or map's) items follow it, as one more column (itself a list for a list of
  // lists); a struct's fields follow it, one column each, unsliced as the struct holds them.
  if (c.type().is_list()) put_column(c.child());
  for (const Column& child : c.children()) put_column(child);
}

Column SpillFile::get_column(const DataType& type) {
  int64_t head[6];
  get(head, sizeof head);
  std::shared_ptr<Buffer> bufs[3];
  for (int i = 0; i < 3; ++i) {
    if (head[3 + i] == kAbsent) continue;
    bufs[i] = detail::BufferAccess::allocate_uninitialized(head[3 + i]);
    get(detail::BufferAccess::mutable_data(*bufs[i]), static_cast<size_t>(head[3 + i]));
  }
  if (type.is_list()) {
    Column items = get_column(type.element());
    return Column::nested(type, head[0], head[1], bufs[0], bufs[1], std::move(items), head[2]);
  }
  if (type.id() == TypeId::Struct) {
    std::vector<Column> children;
    for (const Field& f : type.fields()) children.push_back(get_column(f.type));
    return Column::nested(type, head[0], head[1], bufs[0], std::move(children), head[2]);
  }
  return Column::from_buffers(type, head[0], head[1], bufs[0], bufs[1], bufs[2], head[2]);
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
