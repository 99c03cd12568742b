// Multipart uploads of a staged output, completed together at commit.
#include "io/output/object_store_output.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <optional>
#include <set>

#include "ember/error.h"
#include "io/output/output_dir.h"
#include "io/storage/s3_listing.h"
#include "io/storage/s3_multipart_upload.h"
#include "io/storage/storage_url.h"

namespace ember {
namespace {

namespace fs = std::filesystem;

/// Size of each uploaded part: above S3's 5 MiB minimum, small enough that a few files in
/// flight hold little memory.
constexpr int64_t kPartBytes = int64_t{16} << 20;
/// Files uploaded at once.
constexpr size_t kFilesInFlight = 8;

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

/// Uploads one file's parts into `upload` (not completed).
void upload_file(const std::string& path, MultipartUpload& upload) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError("cannot read staged output file '" + path + "'");
  std::string part;
  int number = 0;
  do {
    part.resize(static_cast<size_t>(kPartBytes));
    in.read(part.data(), kPartBytes);
    part.resize(static_cast<size_t>(in.gcount()));
    if (in.bad()) throw IoError("cannot read staged output file '" + path + "'");
    // An empty file is one empty part: an upload needs at least one.
    if (!part.empty() || number == 0) upload.upload_part(++number, part);
  } while (!in.eof());
}

/// Starts and fills an upload per file, several files at once. On failure every upload
/// started is aborted and the first error is rethrown.
std::vector<MultipartUpload> upload_all(const std::vector<std::string>& files,
                                        const std::string& staged, const ObjectStoreTarget& t) {
  std::vector<std::optional<MultipartUpload>> uploads(files.size());
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  std::exception_ptr error;
  auto worker = [&] {
    for (size_t i; !failed && (i = next++) < files.size();) {
      try {
        MultipartUpload upload(t.config, t.bucket, t.prefix + files[i]);
        {
          std::lock_guard<std::mutex> lock(error_mutex);
          uploads[i].emplace(std::move(upload));
        }
        upload_file(staged + "/" + files[i], *uploads[i]);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        failed = true;
      }
    }
  };
  std::vector<std::future<void>> workers;
  for (size_t w = 0; w < std::min(kFilesInFlight, files.size()); ++w)
    workers.push_back(std::async(std::launch::async, worker));
  for (auto& w : workers) w.get();
  std::vector<MultipartUpload> out;
  for (auto& u : uploads) {
    if (!u) continue;
    if (error) {
      u->abort();
    } else {
      out.push_back(std::move(*u));
    }
  }
  if (error) std::rethrow_exception(error);
  return out;
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

void publish_to_object_store(const std::string& staged, const ObjectStoreTarget& target) {
  std::vector<std::string> files;
  for (const fs::directory_entry& e : fs::directory_iterator(staged))
    if (e.is_regular_file()) files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  files.erase(std::remove(files.begin(), files.end(), "_SUCCESS"), files.end());
  const std::vector<std::string> previous = existing_output(target);
  std::vector<MultipartUpload> uploads = upload_all(files, staged, target);
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
  const std::set<std::string> written(files.begin(), files.end());
  for (const std::string& name : previous)
    if (name != "_SUCCESS" && !written.count(name))
      delete_object(target.config, target.bucket, target.prefix + name);
  put_object(target.config, target.bucket, target.prefix + "_SUCCESS", "");
}

}  // namespace ember
