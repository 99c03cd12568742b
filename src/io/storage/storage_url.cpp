// Splitting s3://, http(s):// and file:// paths into their parts.
#include "io/storage/storage_url.h"

#include <algorithm>
#include <cctype>

#include "ember/error.h"

namespace ember {
namespace {

bool starts_with_scheme(const std::string& path, const std::string& scheme) {
  if (path.size() < scheme.size()) return false;
  return std::equal(scheme.begin(), scheme.end(), path.begin(), [](char a, char b) {
    return a == std::tolower(static_cast<unsigned char>(b));
  });
}

}  // namespace

bool is_remote_path(const std::string& path) {
  return starts_with_scheme(path, "s3://") || starts_with_scheme(path, "http://") ||
         starts_with_scheme(path, "https://");
}

std::string s3_url(const std::string& bucket, const std::string& key) {
  return "s3://" + bucket + "/" + key;
}

StorageUrl parse_storage_url(const std::string& path) {
  StorageUrl u;
  u.text = path;
  if (starts_with_scheme(path, "s3://")) {
    u.scheme = StorageUrl::Scheme::S3;
    const std::string rest = path.substr(5);
    const size_t slash = rest.find('/');
    u.bucket = rest.substr(0, slash);
    if (slash != std::string::npos) u.key = rest.substr(slash + 1);
    if (u.bucket.empty())
      throw InvalidArgument("'" + path + "': an s3:// path needs a bucket (s3://bucket/key)");
    return u;
  }
  if (starts_with_scheme(path, "http://") || starts_with_scheme(path, "https://")) {
    u.scheme = StorageUrl::Scheme::Http;
    u.url = path;
    const size_t host = path.find("://") + 3;
    if (host >= path.size() || path[host] == '/')
      throw InvalidArgument("'" + path + "': the URL has no host");
    return u;
  }
  // file://host/path is not supported beyond an empty host, as most tools do.
  u.path = starts_with_scheme(path, "file://") ? path.substr(7) : path;
  return u;
}

}  // namespace ember
