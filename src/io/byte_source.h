// Random access to a file's bytes wherever they live: a local file (pread) or an object in S3
// or behind an HTTP(S) URL (ranged GETs). The readers see only this.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ember/storage_options.h"

namespace ember {

/// Bytes [offset, offset + size) of a file.
struct ByteRange {
  int64_t offset = 0;
  int64_t size = 0;
};

/// A readable file of known size. Reads may overlap from several threads; each is complete in
/// itself (no shared position).
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  /// The path or URL as the user gave it, for messages.
  virtual const std::string& path() const = 0;
  /// The size in bytes (as found when the source was opened).
  virtual int64_t size() const = 0;
  /// Copies up to `size` bytes at `offset` into `out`; fewer only at the end of the file, 0
  /// past it. Throws IoError.
  virtual size_t read_at(char* out, size_t size, int64_t offset) const = 0;
  /// The bytes of each range, in the order asked. A remote source merges ranges that lie close
  /// together into one request and sends the requests concurrently; a local one preads each.
  /// IoError, or ParseError naming the file and `what` when the file ends inside a range.
  virtual std::vector<std::string> read_ranges(const std::vector<ByteRange>& ranges,
                                               const char* what) const;
  /// True for an object store or HTTP source, where a request costs a round trip.
  virtual bool remote() const { return false; }

  /// Exactly bytes [offset, offset + size): IoError, or ParseError naming the file and `what`
  /// (e.g. "a column chunk") when the file ends first, as a truncated file does.
  std::string read(int64_t offset, int64_t size, const char* what) const;
  /// The same into `out`, which has room for `size` bytes.
  void read_into(char* out, int64_t offset, int64_t size, const char* what) const;
};

/// Opens `path`: s3://bucket/key and http(s):// URLs as remote objects (with `storage`'s
/// endpoint and credentials), anything else as a local file. `known_size` >= 0 (from a
/// listing or an earlier open) saves asking the server for it. Throws IoError naming the path.
std::unique_ptr<ByteSource> open_byte_source(const std::string& path,
                                             const StorageOptions& storage = {},
                                             int64_t known_size = -1);

}  // namespace ember
