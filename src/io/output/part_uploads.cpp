// Part files going up as multipart uploads while the query runs, a few at once.
#include "io/output/part_uploads.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "ember/error.h"
#include "io/output/object_store_output.h"

namespace ember {
namespace {

namespace fs = std::filesystem;

/// Size of each uploaded part: above S3's 5 MiB minimum, small enough that the files in flight
/// hold little memory (kFilesInFlight of them).
constexpr int64_t kPartBytes = int64_t{16} << 20;
/// Files uploaded at once.
constexpr size_t kFilesInFlight = 4;

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

}  // namespace

void abort_listed_uploads(const std::string& dir, const ObjectStoreTarget& target) noexcept {
  try {
    std::ifstream list(fs::path(dir) / kUploadsListName);
    std::string line;
    while (std::getline(list, line)) {
      const size_t space = line.find(' ');
      if (space == std::string::npos) continue;  // a line cut short by the kill
      const std::string key = line.substr(space + 1);
      if (key.rfind(target.prefix, 0) != 0) continue;  // not this target's: not ours to abort
      abort_multipart_upload(target.config, target.bucket, key, line.substr(0, space));
    }
  } catch (...) {
    // Best effort: what stays open is invisible.
  }
}

PartUploads::PartUploads(std::shared_ptr<const ObjectStoreTarget> target, std::string staging)
    : target_(std::move(target)), staging_(std::move(staging)) {}

PartUploads::~PartUploads() { abort(); }

void PartUploads::add(const std::string& name) {
  std::lock_guard lock(mu_);
  if (stopping_) throw Error("internal: a part added to uploads that have ended");
  if (!added_.insert(name).second) return;
  start_guard();
  queue_.push_back(name);
  if (workers_.size() < kFilesInFlight &&
      workers_.size() < queue_.size() + static_cast<size_t>(busy_))
    workers_.emplace_back([this] { work(); });
  ready_.notify_one();
}

void PartUploads::work() {
  std::unique_lock lock(mu_);
  for (;;) {
    ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty() || error_) return;  // stopping, or a failure ends the write
    const std::string name = std::move(queue_.front());
    queue_.pop_front();
    ++busy_;
    lock.unlock();
    std::exception_ptr failure;
    try {
      upload(name);
    } catch (...) {
      failure = std::current_exception();
    }
    lock.lock();
    --busy_;
    if (failure && !error_) error_ = failure;
    if (error_) queue_.clear();
    idle_.notify_all();
  }
}

void PartUploads::upload(const std::string& name) {
  auto started =
      std::make_shared<MultipartUpload>(target_->config, target_->bucket, target_->prefix + name);
  {
    std::lock_guard lock(mu_);
    uploads_.emplace_back(name, started);
  }
  list_upload(*started);
  const std::string path = (fs::path(staging_) / name).string();
  upload_file(path, *started);
  std::error_code ec;  // up: the local copy is no longer needed (the commit removes it else)
  fs::remove(path, ec);
  std::lock_guard lock(mu_);
  up_.insert(name);
}

UploadedParts PartUploads::take(const std::string& name) {
  add(name);
  std::unique_lock lock(mu_);
  idle_.wait(lock, [&] { return up_.count(name) > 0 || error_; });
  if (error_) std::rethrow_exception(error_);
  auto it = std::find_if(uploads_.begin(), uploads_.end(),
                         [&](const auto& u) { return u.first == name; });
  UploadedParts parts = it->second->parts();
  uploads_.erase(it);
  return parts;
}

void PartUploads::adopt(UploadedParts parts) {
  std::string name = parts.key.substr(std::min(target_->prefix.size(), parts.key.size()));
  auto upload =
      std::make_shared<MultipartUpload>(target_->config, target_->bucket, std::move(parts));
  {
    std::lock_guard lock(mu_);
    if (stopping_) {  // the write has ended (failed): nothing will complete it
      upload->abort();
      return;
    }
    start_guard();
    uploads_.emplace_back(name, upload);
  }
  list_upload(*upload);
}

void PartUploads::list_upload(const MultipartUpload& upload) {
  const std::string line = upload.upload_id() + " " + upload.key() + "\n";
  const std::string path = (fs::path(staging_) / kUploadsListName).string();
  std::lock_guard lock(list_mu_);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0 || ::write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
    const int error = errno;
    if (fd >= 0) ::close(fd);
    throw IoError("cannot write '" + path +
                  "' (the list of a write's open uploads): " + std::strerror(error));
  }
  ::close(fd);
}

std::vector<MultipartUpload> PartUploads::finish() {
  std::vector<std::string> rest;
  for (const fs::directory_entry& e : fs::directory_iterator(staging_))
    if (e.is_regular_file()) rest.push_back(e.path().filename().string());
  std::sort(rest.begin(), rest.end());
  for (const std::string& name : rest)
    if (name != "_SUCCESS" && name.front() != '.') add(name);
  {
    std::unique_lock lock(mu_);
    idle_.wait(lock, [this] { return (queue_.empty() && busy_ == 0) || error_; });
    idle_.wait(lock, [this] { return busy_ == 0; });
  }
  stop_workers();
  std::lock_guard lock(mu_);
  if (error_) {
    for (auto& [name, upload] : uploads_) upload->abort();
    uploads_.clear();
    std::rethrow_exception(error_);
  }
  std::sort(uploads_.begin(), uploads_.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<MultipartUpload> out;
  out.reserve(uploads_.size());
  for (auto& [name, upload] : uploads_) out.push_back(std::move(*upload));
  uploads_.clear();
  return out;
}

void PartUploads::stop_workers() noexcept {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    queue_.clear();
  }
  ready_.notify_all();
  for (std::thread& t : workers_)
    if (t.joinable()) t.join();
}

void PartUploads::abort() noexcept {
  stop_workers();
  std::lock_guard lock(mu_);
  for (auto& [name, upload] : uploads_) upload->abort();
  uploads_.clear();
  guard_.reset();  // nothing left open for it to abort
}

void PartUploads::completed() noexcept {
  std::lock_guard lock(mu_);
  guard_.reset();
}

void PartUploads::start_guard() {
  if (guarded_) return;
  guarded_ = true;
  guard_ = UploadGuard::start(*target_, staging_);
}

}  // namespace ember
