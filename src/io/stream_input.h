// A pipe, FIFO or character device read as one stream, opened once when the scan is planned.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace ember {

/// A file that is not a regular file: a pipe, a FIFO, a character device such as /dev/stdin.
/// It cannot seek and cannot be read twice, yet the planner must read its first records to
/// infer the schema, and the partition's reader must then see them again. So the stream is
/// opened once, by the planner, and the bytes the planner reads are kept and handed again to
/// the reader, which goes on with the rest of the stream. It is read by one reader, once.
///
/// Threads: the planner reads first, then at most one reader, on any thread (the executor
/// hands the partition over, which orders the two). Not for concurrent use otherwise.
class StreamInput {
 public:
  /// Opens `path` for reading. For a FIFO this waits until a writer opens it, as every reader
  /// of a FIFO does. Throws IoError.
  explicit StreamInput(std::string path);
  ~StreamInput();
  StreamInput(const StreamInput&) = delete;
  StreamInput& operator=(const StreamInput&) = delete;

  const std::string& path() const { return path_; }

  /// Copies up to `size` bytes of the stream from `offset` into `out` and returns how many
  /// (0 at the end of the stream). Offsets among the kept bytes are served from them; any
  /// other offset must be where the stream stands, and one read(2) serves it (a pipe may
  /// return fewer bytes than asked). Throws IoError.
  size_t read_at(char* out, size_t size, int64_t offset);

  /// Ends planning: bytes read from now on are not kept. Called once, by the planner.
  void stop_keeping() { keeping_ = false; }

  /// Claims the stream for the partition's reader. Throws IoError when a reader claimed it
  /// before: the bytes it read are gone. Thread-safe.
  void claim_for_reading();

 private:
  std::string path_;
  int fd_ = -1;
  std::string kept_;           ///< bytes [0, kept_end_) of the stream, read while planning
  int64_t kept_end_ = 0;       ///< bytes kept (kept_ is released once the reader passes them)
  int64_t stream_offset_ = 0;  ///< stream offset of the next byte read(2) returns
  bool keeping_ = true;
  std::atomic<bool> claimed_{false};
};

}  // namespace ember
