// Reading byte ranges of a local file with pread: what the Parquet and Arrow scans read a
// column chunk or a record batch with, so that a scan holds in memory only what it decodes.
#pragma once

#include <cstdint>
#include <string>

#include "io/byte_source.h"

namespace ember {

/// A local file open for reading, closed when it goes. IoError naming the file when it cannot
/// open.
class ReadOnlyFile final : public ByteSource {
 public:
  explicit ReadOnlyFile(const std::string& path);
  ~ReadOnlyFile() override;
  ReadOnlyFile(const ReadOnlyFile&) = delete;
  ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;
  const std::string& path() const override { return path_; }
  /// The file's size in bytes now (IoError naming the file).
  int64_t size() const override;
  /// pread(2), retried when interrupted. IoError naming the file.
  size_t read_at(char* out, size_t size, int64_t offset) const override;
  /// Tells the kernel the file is read front to back (its readahead doubles).
  void hint_sequential() const;

 private:
  std::string path_;
  int fd_;
};

}  // namespace ember
