// An object in S3 or a resource behind an HTTP(S) URL, read with ranged GETs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "io/byte_source.h"
#include "io/storage/http_client.h"
#include "io/storage/s3_config.h"
#include "io/storage/storage_url.h"

namespace ember {

/// A remote file. Opening it asks for its size (HEAD) unless the caller knows it; every read
/// is a ranged GET, retried on throttling and resets. Nothing is downloaded ahead. Reads may
/// overlap from several threads.
class RemoteObject final : public ByteSource {
 public:
  /// IoError naming the URL and the server's answer when the object cannot be found or read.
  RemoteObject(const StorageUrl& url, const StorageOptions& storage, int64_t known_size = -1);

  const std::string& path() const override { return url_.text; }
  int64_t size() const override { return size_; }
  size_t read_at(char* out, size_t size, int64_t offset) const override;
  /// Ranges closer than kMergeGap merge into one GET (up to kMaxMergedBytes); the GETs run
  /// concurrently, kRequestsInFlight at most.
  std::vector<std::string> read_ranges(const std::vector<ByteRange>& ranges,
                                       const char* what) const override;
  bool remote() const override { return true; }

  static constexpr int64_t kMergeGap = int64_t{1} << 20;
  static constexpr int64_t kMaxMergedBytes = int64_t{64} << 20;
  static constexpr size_t kRequestsInFlight = 16;

 private:
  /// A request for this object: the URL, and the signing settings for S3.
  HttpRequest request(const std::string& method) const;
  int64_t ask_size() const;

  StorageUrl url_;
  std::optional<S3Config> s3_;
  int64_t size_ = 0;
};

}  // namespace ember
