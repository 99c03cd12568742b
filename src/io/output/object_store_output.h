// The all-or-nothing write protocol for an object store, which has no rename: each part file a
// query writes goes up as a multipart upload as soon as it is complete (part_uploads.h), the
// uploads are completed only once every file is up, and `_SUCCESS` is written last. See
// docs/object-storage.md.
#pragma once

#include <string>
#include <vector>

#include "ember/storage_options.h"
#include "io/storage/s3_config.h"

namespace ember {

/// An output prefix in a bucket, checked when the query starts.
struct ObjectStoreTarget {
  std::string given;  ///< as the user named it, for messages
  std::string bucket;
  std::string prefix;  ///< the keys' common start, ending with '/'
  S3Config config;
};

/// Resolves and checks `target` (s3://bucket/prefix[/]) before any work runs: InvalidArgument
/// for an http(s):// target, a bucket root, or a prefix holding an object ember did not write
/// (it would be deleted by the replace); IoError naming the URL and the server's answer when
/// the bucket cannot be listed (missing, denied, unreachable).
ObjectStoreTarget check_object_store_target(const std::string& target,
                                            const StorageOptions& storage);

/// InvalidArgument when one of `inputs` (files a query reads) lies under the s3:// `target`:
/// replacing the prefix would destroy the query's own input.
void check_object_store_not_read(const std::string& target, const std::vector<std::string>& inputs);

class PartUploads;

/// Publishes the files of a write under the target's prefix, replacing what an earlier output
/// left there:
///   1. every file is up as a multipart upload, none completed (`parts` uploaded most of them
///      while the query ran; PartUploads::finish waits for the rest); on any failure every
///      upload is aborted and the target is untouched;
///   2. the previous `_SUCCESS` is deleted, then every upload is completed;
///   3. objects of the previous output that the new one does not replace are deleted;
///   4. `_SUCCESS` is written, last.
/// A reader that waits for `_SUCCESS` sees the old set or the new one, never a mix. Throws
/// IoError naming the object and the server's answer; InvalidArgument when a foreign object
/// appeared under the prefix while the query ran.
void publish_to_object_store(PartUploads& parts, const ObjectStoreTarget& target);

}  // namespace ember
