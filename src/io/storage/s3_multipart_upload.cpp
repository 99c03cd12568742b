// CreateMultipartUpload, UploadPart, CompleteMultipartUpload and AbortMultipartUpload, and the
// single-request PUT and DELETE of an object.
#include "io/storage/s3_multipart_upload.h"

#include <mutex>
#include <pugixml.hpp>

#include "ember/error.h"
#include "io/storage/http_client.h"
#include "io/storage/storage_error.h"
#include "io/storage/storage_url.h"

namespace ember {
namespace {

HttpResponse send(const S3Config& config, const std::string& method, const std::string& bucket,
                  const std::string& key, const std::string& query, std::string body = {}) {
  HttpRequest r;
  r.method = method;
  r.url = config.object_url(bucket, key, query);
  r.label = s3_url(bucket, key);
  r.body = std::move(body);
  r.sign = &config;
  return HttpClient::instance().send(r);
}

std::mutex etag_mutex;  // parts of one upload may finish on several threads

}  // namespace

MultipartUpload::MultipartUpload(const S3Config& config, std::string bucket, std::string key)
    : config_(&config), bucket_(std::move(bucket)), key_(std::move(key)) {
  const HttpResponse answer = send(config, "POST", bucket_, key_, "uploads=");
  if (!answer.ok()) throw_storage_error("start an upload to", s3_url(bucket_, key_), answer);
  pugi::xml_document doc;
  doc.load_buffer(answer.body.data(), answer.body.size());
  upload_id_ = doc.child("InitiateMultipartUploadResult").child_value("UploadId");
  if (upload_id_.empty())
    throw IoError("cannot start an upload to '" + s3_url(bucket_, key_) +
                  "': the answer holds no UploadId");
}

MultipartUpload::MultipartUpload(const S3Config& config, std::string bucket, UploadedParts parts)
    : config_(&config),
      bucket_(std::move(bucket)),
      key_(std::move(parts.key)),
      upload_id_(std::move(parts.upload_id)),
      etags_(std::move(parts.etags)) {}

void MultipartUpload::upload_part(int number, const std::string& bytes) {
  const std::string query =
      "partNumber=" + std::to_string(number) + "&uploadId=" + uri_encode(upload_id_, false);
  const HttpResponse answer = send(*config_, "PUT", bucket_, key_, query, bytes);
  if (!answer.ok())
    throw_storage_error("upload part " + std::to_string(number) + " of", s3_url(bucket_, key_),
                        answer);
  std::lock_guard<std::mutex> lock(etag_mutex);
  if (etags_.size() < static_cast<size_t>(number)) etags_.resize(static_cast<size_t>(number));
  etags_[static_cast<size_t>(number - 1)] = answer.header("etag");
}

void MultipartUpload::complete() {
  std::string body = "<CompleteMultipartUpload>";
  for (size_t i = 0; i < etags_.size(); ++i)
    body += "<Part><PartNumber>" + std::to_string(i + 1) + "</PartNumber><ETag>" + etags_[i] +
            "</ETag></Part>";
  body += "</CompleteMultipartUpload>";
  const HttpResponse answer =
      send(*config_, "POST", bucket_, key_, "uploadId=" + uri_encode(upload_id_, false), body);
  // S3 may answer 200 with an error in the body when the completion failed late.
  if (!answer.ok() || answer.body.find("<Error>") != std::string::npos)
    throw_storage_error("complete the upload of", s3_url(bucket_, key_), answer);
}

void MultipartUpload::abort() noexcept {
  abort_multipart_upload(*config_, bucket_, key_, upload_id_);
}

void abort_multipart_upload(const S3Config& config, const std::string& bucket,
                            const std::string& key, const std::string& upload_id) noexcept {
  try {
    send(config, "DELETE", bucket, key, "uploadId=" + uri_encode(upload_id, false));
  } catch (...) {
    // An upload left open holds no visible object; a bucket lifecycle rule removes it.
  }
}

void put_object(const S3Config& config, const std::string& bucket, const std::string& key,
                const std::string& bytes) {
  const HttpResponse answer = send(config, "PUT", bucket, key, "", bytes);
  if (!answer.ok()) throw_storage_error("write", s3_url(bucket, key), answer);
}

void delete_object(const S3Config& config, const std::string& bucket, const std::string& key) {
  const HttpResponse answer = send(config, "DELETE", bucket, key, "");
  if (!answer.ok() && answer.status != 404)
    throw_storage_error("delete", s3_url(bucket, key), answer);
}

}  // namespace ember
