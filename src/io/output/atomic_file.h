// An output file that appears under its final name only once it is complete.
#pragma once

#include <string>
#include <string_view>

namespace ember {

/// Writes to `<dir>/.<name>.tmp`; commit() fsyncs it and renames it to `<dir>/<name>`, so a
/// reader never sees a partial file. Destroying an uncommitted file removes the temp file.
/// Every write, the fsync, the close and the rename are checked: a failure (ENOSPC, EACCES,
/// EIO...) is an IoError naming the file and the reason. Not thread-safe.
class AtomicFile {
 public:
  /// Creates (or truncates) the temp file. Throws IoError.
  AtomicFile(const std::string& dir, const std::string& name);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  /// Writes all of `bytes` (unbuffered: callers batch their output). Throws IoError.
  void write(std::string_view bytes);
  /// Makes the file durable and visible under its final name. Call once. Throws IoError.
  void commit();

  const std::string& temp_path() const { return temp_path_; }
  const std::string& final_path() const { return final_path_; }

 private:
  [[noreturn]] void fail(const char* action, int error) const;

  std::string dir_;
  std::string temp_path_;
  std::string final_path_;
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace ember
