/// \file
/// How Expr::url_download fetches the files a column of URLs names.
#pragma once

#include "ember/on_error.h"

namespace ember {

/// Settings of Expr::url_download. Credentials and the endpoint of s3:// URLs come from the
/// environment, as for read_* (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, ..., ~/.aws profiles).
struct DownloadOptions {
  /// Downloads a process runs at once, over every query and partition (>= 1).
  int max_connections = 32;
  /// Raise: a URL that cannot be downloaded (no such object, a refused connection once its
  /// retries are spent, a denied credential) fails the query with an IoError naming it. Null:
  /// that row gets a null and is a row of QueryResult::rejected. Skip is not taken.
  OnError on_error = OnError::Raise;
};

}  // namespace ember
