// The multipart uploads of a write's part files, completed together at commit.
#include "io/output/object_store_output.h"

#include <set>

#include "ember/error.h"
#include "io/output/output_dir.h"
#include "io/output/part_uploads.h"
#include "io/storage/s3_listing.h"
#include "io/storage/s3_multipart_upload.h"
#include "io/storage/storage_url.h"

namespace ember {
namespace {

/// The names directly under the prefix; InvalidArgument for a foreign object.
std::vector<std::string> existing_output(const ObjectStoreTarget& t) {
  std::vector<std::string> names;
  for (const ListedObject& o : list_objects(t.config, t.bucket, t.prefix)) {
    const std::string name = o.key.substr(t.prefix.size());
    if (name.find('/') != std::string::npos || !is_output_file_name(name))
      throw InvalidArgument("cannot write '" + t.given + "': it holds '" + s3_url(t.bucket, o.key) +
                            "', which ember did not write (a write replaces the whole prefix; "
                            "choose another one)");
    names.push_back(name);
  }
  return names;
}

}  // namespace

ObjectStoreTarget check_object_store_target(const std::string& target,
                                            const StorageOptions& storage) {
  const StorageUrl url = parse_storage_url(target);
  if (url.scheme != StorageUrl::Scheme::S3)
    throw InvalidArgument("cannot write '" + target +
                          "': HTTP(S) URLs are read-only; write to s3://bucket/prefix");
  ObjectStoreTarget t;
  t.given = target;
  t.bucket = url.bucket;
  t.prefix = url.key;
  if (!t.prefix.empty() && t.prefix.back() != '/') t.prefix += '/';
  if (t.prefix.empty() || t.prefix == "/")
    throw InvalidArgument("cannot write '" + target +
                          "': a write replaces a whole prefix, so it needs one "
                          "(s3://bucket/prefix), not a bucket's root");
  if (t.prefix.find_first_of("*?[") != std::string::npos)
    throw InvalidArgument("cannot write '" + target + "': an output prefix has no wildcards");
  t.config = resolve_s3_config(storage);
  existing_output(t);
  return t;
}

void check_object_store_not_read(const std::string& target,
                                 const std::vector<std::string>& inputs) {
  const StorageUrl url = parse_storage_url(target);
  if (url.scheme != StorageUrl::Scheme::S3) return;  // refused when the output is opened
  std::string prefix = url.key;
  if (!prefix.empty() && prefix.back() != '/') prefix += '/';
  for (const std::string& input : inputs) {
    const StorageUrl in = parse_storage_url(input);
    if (in.scheme == StorageUrl::Scheme::S3 && in.bucket == url.bucket &&
        in.key.rfind(prefix, 0) == 0)
      throw InvalidArgument("cannot write '" + target + "': the query reads '" + input +
                            "', which the write would replace; write to another prefix");
  }
}

void publish_to_object_store(PartUploads& parts, const ObjectStoreTarget& target) {
  std::vector<MultipartUpload> uploads = parts.finish();
  // Checked again now that the query has run: a foreign object aborts the write.
  std::vector<std::string> previous;
  try {
    previous = existing_output(target);
  } catch (...) {
    for (MultipartUpload& u : uploads) u.abort();
    throw;
  }
  // From here the previous output changes: without its _SUCCESS it reads as incomplete.
  try {
    delete_object(target.config, target.bucket, target.prefix + "_SUCCESS");
    for (size_t i = 0; i < uploads.size(); ++i) {
      try {
        uploads[i].complete();
      } catch (...) {
        for (size_t j = i; j < uploads.size(); ++j) uploads[j].abort();
        throw;
      }
    }
  } catch (const Error& e) {
    throw IoError(std::string(e.what()) + " (the output under '" + target.given +
                  "' is incomplete and has no _SUCCESS)");
  }
  std::set<std::string> written;
  for (const MultipartUpload& u : uploads) written.insert(u.key().substr(target.prefix.size()));
  for (const std::string& name : previous)
    if (name != "_SUCCESS" && !written.count(name))
      delete_object(target.config, target.bucket, target.prefix + name);
  put_object(target.config, target.bucket, target.prefix + "_SUCCESS", "");
}

}  // namespace ember
