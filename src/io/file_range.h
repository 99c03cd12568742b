// Reading byte ranges of a file with pread: what the Parquet and Arrow scans read a column
// chunk or a record batch with, so that a scan holds in memory only what it decodes.
#pragma once

#include <cstdint>
#include <string>

namespace ember {

/// A file open for reading, closed when it goes. IoError naming the file when it cannot open.
class ReadOnlyFile {
 public:
  explicit ReadOnlyFile(const std::string& path);
  ~ReadOnlyFile();
  ReadOnlyFile(const ReadOnlyFile&) = delete;
  ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;
  const std::string& path() const { return path_; }
  /// The file's size in bytes (IoError naming the file).
  int64_t size() const;
  /// Bytes [offset, offset + size). IoError when the read fails; ParseError naming the file
  /// and `what` (e.g. "a column chunk") when the file ends first, as a truncated file does.
  std::string read(int64_t offset, int64_t size, const char* what) const;

 private:
  std::string path_;
  int fd_;
};

}  // namespace ember
