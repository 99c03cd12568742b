// What a path names: a local file, an object in an S3 bucket, or an HTTP(S) resource.
#pragma once

#include <string>

namespace ember {

/// A parsed path. `s3://bucket/key` gives bucket and key; `http(s)://...` keeps the URL;
/// `file:///abs/path` and a plain path give a local path.
struct StorageUrl {
  enum class Scheme { Local, S3, Http };
  Scheme scheme = Scheme::Local;
  std::string text;    ///< the path as given, for messages
  std::string path;    ///< Local: the file system path
  std::string bucket;  ///< S3
  std::string key;     ///< S3: the object key, without a leading '/'
  std::string url;     ///< Http: the URL as given

  bool remote() const { return scheme != Scheme::Local; }
};

/// Parses `path`. InvalidArgument for an s3:// path without a bucket or an empty URL host.
StorageUrl parse_storage_url(const std::string& path);

/// True when `path` starts with s3://, http:// or https:// (case-insensitive scheme).
bool is_remote_path(const std::string& path);

/// `s3://bucket/key` for messages and listings.
std::string s3_url(const std::string& bucket, const std::string& key);

}  // namespace ember
