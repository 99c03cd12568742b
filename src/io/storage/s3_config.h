// The endpoint, region and credentials an S3 request uses, resolved as the AWS tools resolve
// them: StorageOptions first, then AWS_* variables, then the shared profile files.
#pragma once

#include <string>

#include "ember/storage_options.h"

namespace ember {

/// Resolved settings for one bucket's requests. Plain data, copied into every reader.
struct S3Config {
  /// "scheme://host[:port]" without a trailing '/'. With a custom endpoint, buckets are
  /// addressed path-style (endpoint/bucket/key); on AWS, virtual-hosted style.
  std::string endpoint;
  bool path_style = true;
  std::string region;
  std::string access_key_id, secret_access_key, session_token;  ///< empty key: unsigned
  int max_connections = 64;

  /// The URL of `key` in `bucket` (the key percent-encoded, '/' kept); `query` is appended
  /// after '?' when not empty.
  std::string object_url(const std::string& bucket, const std::string& key,
                         const std::string& query = "") const;
};

/// Resolves `options` against the environment and ~/.aws/{credentials,config}. Fields set in
/// `options` win; access_key_id given there takes its secret and token from there too.
/// InvalidArgument when a key comes without its secret, or max_connections < 1.
S3Config resolve_s3_config(const StorageOptions& options);

/// An endpoint as written in AWS_ENDPOINT_URL and the like: https:// when it has no scheme, and
/// no trailing '/'.
std::string normalized_endpoint(std::string endpoint);

/// `text` percent-encoded as S3 wants URL paths and query values (RFC 3986 unreserved kept;
/// '/' kept when `keep_slash`).
std::string uri_encode(const std::string& text, bool keep_slash);

}  // namespace ember
