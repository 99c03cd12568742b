// Temporary files that hold columns a sink cannot keep in memory: each column's Arrow buffers
// written as they are (a list's items and a struct's fields after it), read back in the order
// written; the file is removed when it closes.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "ember/column.h"

namespace ember {

/// One spill file under the system temp directory (std::filesystem::temp_directory_path()).
/// Written first (append), then read back from the start (once, unless restarted). Its name is
/// removed as soon as it is open, so nothing is left behind whether the query ends, fails or
/// its process is killed. Not thread-safe: one owner.
class SpillFile {
 public:
  /// Creates the file. IoError when the temp directory refuses it.
  SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;
  ~SpillFile();

  /// Appends one group of equal-length columns. IoError when the disk refuses the write.
  void write(const std::vector<Column>& columns);
  /// The groups written, in order, each rebuilt with `types` (the types it was written with).
  /// IoError on a short read.
  std::vector<std::vector<Column>> read_all(const std::vector<DataType>& types);
  /// The next group written (the first on the first call), or none past the last: reads a
  /// file one group at a time. Not mixed with read_all(). IoError on a short read.
  std::optional<std::vector<Column>> read_next(const std::vector<DataType>& types);
  /// Makes the next read_next() read the first group again (a file read more than once).
  void restart() { groups_read_ = -1; }

  /// What the file is, for messages ("an unnamed spill file in /tmp"): it has no name in the
  /// file system, so that no spill file outlives its process.
  const std::string& path() const { return path_; }
  int64_t bytes_written() const { return bytes_; }
  /// Spill files that exist now in this process (tests check they are all gone again).
  static int64_t files_open();
  /// Spill files made so far in this process.
  static int64_t files_created();

 private:
  void rewind();
  void put(const void* data, size_t n);
  void get(void* data, size_t n);
  void put_column(const Column& c);
  Column get_column(const DataType& type);

  std::string path_;
  std::FILE* file_ = nullptr;
  int64_t bytes_ = 0;
  int64_t groups_ = 0;
  int64_t groups_read_ = -1;  ///< read_next(): groups read so far; -1 before the first
};

}  // namespace ember
