// Spill files: a small header per column (length, null count, offset, buffer sizes) followed by
// the buffers' bytes, so that reading back is one read per buffer and no parsing.
#include "exec/relational/spill_file.h"

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

}  // namespace

SpillFile::SpillFile() {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) dir = "/tmp";
  std::string templ = (dir / "ember-spill-XXXXXX").string();
  const int fd = ::mkstemp(templ.data());
  if (fd < 0)
    throw IoError("cannot create a spill file in " + dir.string() + ": " + std::strerror(errno));
  file_ = ::fdopen(fd, "w+b");
  if (!file_) {
    ::close(fd);
    ::unlink(templ.c_str());
    throw IoError("cannot open spill file " + templ + ": " + std::strerror(errno));
  }
  path_ = std::move(templ);
  ++g_open;
  ++g_created;
}

SpillFile::~SpillFile() {
  std::fclose(file_);
  ::unlink(path_.c_str());
  --g_open;
}

int64_t SpillFile::files_open() { return g_open.load(); }
int64_t SpillFile::files_created() { return g_created.load(); }

void SpillFile::put(const void* data, size_t n) {
  if (n == 0) return;
  if (std::fwrite(data, 1, n, file_) != n)
    throw IoError("cannot write spill file " + path_ + " (disk full?): " + std::strerror(errno));
  bytes_ += static_cast<int64_t>(n);
}

void SpillFile::get(void* data, size_t n) {
  if (n == 0) return;
  if (std::fread(data, 1, n, file_) != n)
    throw IoError("spill file " + path_ + " ended early: it was changed while the query ran");
}

void SpillFile::write(const std::vector<Column>& columns) {
  for (const Column& whole : columns) {
    // A slice of a larger column is copied out first, so that only its own rows are written.
    int64_t held = 0;
    for (const auto* b : {&whole.validity_buffer(), &whole.values_buffer(), &whole.data_buffer()})
      if (*b) held += (*b)->size();
    const Column c =
        whole.offset() != 0 || held > whole.byte_size() + 256 ? Column::concat({whole}) : whole;
    const int64_t head[6] = {c.size(),
                             c.null_count(),
                             c.offset(),
                             size_of(c.validity_buffer()),
                             size_of(c.values_buffer()),
                             size_of(c.data_buffer())};
    put(head, sizeof head);
    for (const auto* b : {&c.validity_buffer(), &c.values_buffer(), &c.data_buffer()})
      if (*b) put((*b)->data(), static_cast<size_t>((*b)->size()));
  }
  ++groups_;
}

std::vector<std::vector<Column>> SpillFile::read_all(const std::vector<DataType>& types) {
  if (std::fflush(file_) != 0 || std::fseek(file_, 0, SEEK_SET) != 0)
    throw IoError("cannot rewind spill file " + path_ + ": " + std::strerror(errno));
  std::vector<std::vector<Column>> groups;
  for (int64_t g = 0; g < groups_; ++g) {
    std::vector<Column> columns;
    for (const DataType& type : types) {
      int64_t head[6];
      get(head, sizeof head);
      std::shared_ptr<Buffer> bufs[3];
      for (int i = 0; i < 3; ++i) {
        if (head[3 + i] == kAbsent) continue;
        bufs[i] = Buffer::allocate_uninitialized(head[3 + i]);
        get(detail::BufferAccess::mutable_data(*bufs[i]), static_cast<size_t>(head[3 + i]));
      }
      columns.push_back(
          Column::from_buffers(type, head[0], head[1], bufs[0], bufs[1], bufs[2], head[2]));
    }
    groups.push_back(std::move(columns));
  }
  return groups;
}

}  // namespace ember
