// The file a fuzz target hands to a reader: the readers take paths (and globs), so each input is
// written to one file, reused for every input, in a directory private to this process.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace ember::fuzzing {

/// One file per process and extension, under a fresh mkdtemp(3) directory (so parallel fuzzing
/// jobs never share it), removed when the process exits normally. Not thread-safe: a fuzz
/// target runs one input at a time.
class FuzzInputFile {
 public:
  /// `name` is the file's name inside the directory, e.g. "input.csv"; it must hold no glob
  /// characters, as the readers expand globs.
  explicit FuzzInputFile(const std::string& name) {
    std::string dir = (std::filesystem::temp_directory_path() / "ember-fuzz-XXXXXX").string();
    if (::mkdtemp(dir.data()) == nullptr) {
      std::perror("ember fuzz: mkdtemp");
      std::abort();
    }
    dir_ = dir;
    path_ = dir + "/" + name;
  }
  ~FuzzInputFile() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  FuzzInputFile(const FuzzInputFile&) = delete;
  FuzzInputFile& operator=(const FuzzInputFile&) = delete;

  /// Replaces the file's contents with `data` and returns its path. Aborts on a write failure:
  /// that is the machine's fault, not the reader's, and must not pass for a finding's absence.
  const std::string& write(const uint8_t* data, size_t size) {
    const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
      std::perror("ember fuzz: open");
      std::abort();
    }
    size_t done = 0;
    while (done < size) {
      const ssize_t n = ::write(fd, data + done, size - done);
      if (n <= 0) {
        std::perror("ember fuzz: write");
        std::abort();
      }
      done += static_cast<size_t>(n);
    }
    ::close(fd);
    return path_;
  }

 private:
  std::string dir_;
  std::string path_;
};

}  // namespace ember::fuzzing
