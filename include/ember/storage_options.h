/// \file
/// Where object storage is and how to sign in to it: what read_* and write_* take for s3:// and
/// http(s):// paths.
#pragma once

#include <string>

namespace ember {

/// The endpoint and credentials for s3:// paths (and the connection limit for http(s):// ones).
/// An empty field is taken from the environment, as the AWS command line tools take it:
/// AWS_ENDPOINT_URL, AWS_REGION (or AWS_DEFAULT_REGION), AWS_ACCESS_KEY_ID,
/// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, else the profile AWS_PROFILE (default "default")
/// of ~/.aws/credentials (AWS_SHARED_CREDENTIALS_FILE) and ~/.aws/config (AWS_CONFIG_FILE),
/// else the profile's credential_process, a container's credentials endpoint or an EC2
/// instance's role (docs/object-storage.md). Without any credentials, requests go unsigned
/// (public buckets). Local paths ignore it.
struct StorageOptions {
  /// An S3-compatible server (MinIO, Ceph, R2, ...), e.g. "http://127.0.0.1:9000"; its buckets
  /// are addressed path-style (endpoint/bucket/key). Empty: AWS_ENDPOINT_URL, else AWS S3 of
  /// the region (virtual-hosted style).
  std::string endpoint_url = {};
  /// The region requests are signed for; empty: AWS_REGION, the profile's, else "us-east-1".
  std::string region = {};
  /// The access key; when given, the secret (and session token) come from here too.
  std::string access_key_id = {};
  std::string secret_access_key = {};  ///< the secret that goes with access_key_id
  std::string session_token = {};      ///< temporary credentials' token (empty: none)
  /// Connections to one server that a process keeps open at most (>= 1).
  int max_connections = 64;
};

}  // namespace ember
