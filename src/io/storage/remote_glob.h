// The objects an s3:// path or glob names, and the single resource an http(s):// URL names.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ember/storage_options.h"
#include "io/storage/storage_url.h"

namespace ember {

/// A remote file found by expansion, with its size.
struct RemoteFile {
  std::string url;
  int64_t size = 0;
};

/// s3://bucket/key: that object. s3://bucket/prefix/ (or the bucket alone): every object
/// under it. A key with wildcards (`*`, `?`, `[...]`, as in glob(7): they do not cross '/')
/// lists the keys after the prefix before the first wildcard and keeps those that match.
/// Like local globs, a listing skips names starting with '_' or '.' (an output's _SUCCESS)
/// unless the pattern's last part starts with one. http(s):// URLs are not expanded ('?'
/// starts a query there). Sorted by key; IoError naming the URL when nothing matches or the
/// server refuses.
std::vector<RemoteFile> expand_remote(const StorageUrl& url, const StorageOptions& storage);

}  // namespace ember
