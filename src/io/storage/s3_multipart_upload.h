// One object written as an S3 multipart upload: parts go up while nothing is visible, and the
// object appears whole when the upload is completed (or never, when it is aborted).
#pragma once

#include <string>
#include <vector>

#include "io/storage/s3_config.h"

namespace ember {

/// What identifies an open upload and its parts: enough for another process (rank 0 of the MPI
/// runner) to complete or abort it.
struct UploadedParts {
  std::string key;
  std::string upload_id;
  std::vector<std::string> etags;  ///< by part number - 1
};

/// An open multipart upload. Parts may be uploaded from several threads at once; start,
/// complete and abort are called by one thread.
class MultipartUpload {
 public:
  /// Parts but the last must be at least this big (S3's rule).
  static constexpr int64_t kMinPartBytes = int64_t{5} << 20;

  /// Starts the upload of s3://bucket/key (CreateMultipartUpload). IoError naming the URL and
  /// the server's answer.
  MultipartUpload(const S3Config& config, std::string bucket, std::string key);
  /// Takes over an upload another process started and filled (`parts`): complete() and
  /// abort() act on it here.
  MultipartUpload(const S3Config& config, std::string bucket, UploadedParts parts);
  MultipartUpload(MultipartUpload&&) = default;

  /// Uploads part `number` (1-based, at most 10000) and keeps its ETag. IoError.
  void upload_part(int number, const std::string& bytes);
  /// Makes the object visible with its parts in number order (CompleteMultipartUpload).
  /// IoError; the upload stays open then (abort it).
  void complete();
  /// Discards the parts (AbortMultipartUpload). Best effort: never throws.
  void abort() noexcept;

  const std::string& key() const { return key_; }
  const std::string& upload_id() const { return upload_id_; }
  /// The upload as another process can take it over.
  UploadedParts parts() const { return {key_, upload_id_, etags_}; }

 private:
  const S3Config* config_;
  std::string bucket_, key_, upload_id_;
  std::vector<std::string> etags_;  ///< by part number - 1; parts may arrive out of order
};

/// Aborts the upload `upload_id` of s3://bucket/key, which another process may have started.
/// Best effort: never throws.
void abort_multipart_upload(const S3Config& config, const std::string& bucket,
                            const std::string& key, const std::string& upload_id) noexcept;

/// Stores `bytes` as s3://bucket/key in one PUT. IoError naming the URL.
void put_object(const S3Config& config, const std::string& bucket, const std::string& key,
                const std::string& bytes);

/// Deletes s3://bucket/key (no error when it is already gone). IoError naming the URL.
void delete_object(const S3Config& config, const std::string& bucket, const std::string& key);

}  // namespace ember
