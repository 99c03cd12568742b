// Staging, committing and aborting a query's output directory; see staged_output.h.
#include "io/output/staged_output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "ember/error.h"
#include "io/output/atomic_file.h"
#include "io/output/directory_swap.h"
#include "io/output/object_store_output.h"
#include "io/output/output_dir.h"
#include "io/output/part_uploads.h"
#include "io/output/staging_dir.h"
#include "io/storage/storage_url.h"

namespace ember {
namespace {

namespace fs = std::filesystem;

/// fsyncs a directory so that the renames and creations inside it survive a crash. `required`:
/// a failure is an IoError; otherwise it is ignored (the step it protects already happened).
void sync_directory(const std::string& dir, bool required) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int error = fd < 0 ? errno : 0;
  if (fd >= 0 && ::fsync(fd) != 0 && errno != EINVAL) error = errno;  // EINVAL: cannot sync
  if (fd >= 0) ::close(fd);
  if (error != 0 && required) {
    throw IoError("cannot sync output directory '" + dir + "': " + std::strerror(error));
  }
}

void create_parents(const OutputDir& target) {
  std::error_code ec;
  fs::create_directories(fs::path(target.path).parent_path(), ec);
  if (ec) {
    throw IoError("cannot create output directory '" + target.given + "': " + ec.message());
  }
}

/// A fresh staging directory beside the target, claimed by this process before it exists so
/// that no sweep (of this process) can take it for debris.
std::string make_staging_dir(const OutputDir& target) {
  const fs::path path(target.path);
  const std::string staging =
      (path.parent_path() / staging_name(path.filename().string(), StagingRole::Staging)).string();
  claim_staging(staging);
  if (::mkdir(staging.c_str(), 0777) != 0) {
    const int error = errno;
    release_staging(staging);
    throw IoError("cannot write output directory '" + target.given + "': creating '" + staging +
                  "' failed: " + std::strerror(error) +
                  " (ember writes beside the target and then swaps it in, so the directory "
                  "that holds the target must be writable)");
  }
  // The new set takes the old one's place: keep its permissions (owner and ACLs cannot be).
  struct stat st {};
  if (target.exists && ::stat(target.path.c_str(), &st) == 0) {
    (void)::chmod(staging.c_str(), st.st_mode & 07777);
  }
  return staging;
}

/// The name the local staging directories of writes to `target` are made from ("s3-bucket-
/// prefix", every other character '_'): the same for every write to it, so that a write finds
/// the ones dead writers left.
std::string local_stage_name(const ObjectStoreTarget& target) {
  std::string name = "s3-" + target.bucket + "-" + target.prefix;
  while (!name.empty() && name.back() == '/') name.pop_back();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') c = '_';
  return name;
}

}  // namespace

StagedOutput StagedOutput::open(const std::string& target, const StorageOptions& storage) {
  if (is_remote_path(target)) {
    auto remote =
        std::make_shared<const ObjectStoreTarget>(check_object_store_target(target, storage));
    // Staged in the temporary directory under a name that says whose it is, so that the files
    // of a writer that was killed are removed by the next write to the same prefix.
    const std::string tmp = fs::temp_directory_path().string();
    const std::string name = local_stage_name(*remote);
    remove_dead_staging(tmp, name,
                        [&](const std::string& dead) { abort_listed_uploads(dead, *remote); });
    const std::string local = (fs::path(tmp) / staging_name(name, StagingRole::Staging)).string();
    claim_staging(local);
    if (::mkdir(local.c_str(), 0700) != 0) {
      const int error = errno;
      release_staging(local);
      throw IoError("cannot write '" + target + "': no local staging directory ('" + local +
                    "'): " + std::strerror(error));
    }
    StagedOutput out(target, target, local);
    out.uploads_ = std::make_unique<PartUploads>(remote, local);
    out.remote_ = std::move(remote);
    return out;
  }
  const OutputDir resolved = resolve_output_dir(target);
  if (resolved.exists) check_replaceable(resolved);
  create_parents(resolved);
  const fs::path path(resolved.path);
  remove_dead_staging(path.parent_path().string(), path.filename().string());
  return StagedOutput(target, resolved.path, make_staging_dir(resolved));
}

StagedOutput StagedOutput::open_resumable(const std::string& target) {
  if (is_remote_path(target))
    throw InvalidArgument("cannot write '" + target +
                          "': RunOptions::resumable writes to local directories only, so far");
  const OutputDir resolved = resolve_output_dir(target);
  if (resolved.exists) check_replaceable(resolved);
  create_parents(resolved);
  const fs::path path(resolved.path);
  remove_dead_staging(path.parent_path().string(), path.filename().string());
  const std::string staging =
      (path.parent_path() / resume_staging_name(path.filename().string())).string();
  bool existed = true;
  if (::mkdir(staging.c_str(), 0777) != 0) {
    const int error = errno;
    std::error_code ec;
    if (error != EEXIST || !fs::is_directory(fs::symlink_status(staging, ec)))
      throw IoError("cannot write output directory '" + target + "': creating '" + staging +
                    "' failed: " + std::strerror(error));
  } else {
    existed = false;
  }
  StagedOutput out(target, resolved.path, staging);
  out.resumable_ = true;
  out.existed_ = existed;
  return out;
}

StagedOutput::StagedOutput(std::string given, std::string target, std::string staging)
    : given_(std::move(given)), target_(std::move(target)), staging_(std::move(staging)) {}

StagedOutput::StagedOutput(StagedOutput&& other) noexcept
    : given_(std::move(other.given_)),
      target_(std::move(other.target_)),
      staging_(std::move(other.staging_)),
      resumable_(other.resumable_),
      existed_(other.existed_),
      remote_(std::move(other.remote_)),
      uploads_(std::move(other.uploads_)) {
  other.staging_.clear();
}

StagedOutput::~StagedOutput() { abort(); }

void StagedOutput::abort() noexcept {
  if (staging_.empty()) return;
  if (uploads_) uploads_->abort();  // before its files go: nothing it started stays open
  if (resumable_) {                 // what it holds is for the next run of the same query
    staging_.clear();
    return;
  }
  std::error_code ec;
  fs::remove_all(staging_, ec);  // what stays is removed by the next write to this target
  release_staging(staging_);
  staging_.clear();
}

void StagedOutput::commit() {
  if (staging_.empty()) {
    throw Error("internal: output '" + given_ + "' committed after a commit or an abort");
  }
  if (remote_) {
    publish_to_object_store(*uploads_, *remote_);
    uploads_->completed();
    std::error_code ec;
    fs::remove_all(staging_, ec);
    release_staging(staging_);
    staging_.clear();
    return;
  }
  // The target may have changed while the query ran; check it again just before replacing it.
  OutputDir current{given_, target_, false};
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(target_, ec);
  current.exists = fs::exists(st);
  if (current.exists && !fs::is_directory(st)) {
    throw IoError("output path '" + given_ + "' exists and is not a directory");
  }
  if (current.exists) check_replaceable(current);

  AtomicFile marker(staging_, "_SUCCESS");  // empty; Hadoop and Spark readers look for it
  marker.commit();
  sync_directory(staging_, /*required=*/true);

  const fs::path path(target_);
  const std::string parent = path.parent_path().string();
  const std::string aside =
      (path.parent_path() / staging_name(path.filename().string(), StagingRole::Retired)).string();
  claim_staging(aside);
  std::string previous;
  try {
    previous = replace_directory(staging_, target_, aside);
  } catch (...) {
    release_staging(aside);
    throw;
  }
  // Committed: from here on nothing may throw, since the new set is already in place.
  sync_directory(parent, /*required=*/false);
  if (!previous.empty()) fs::remove_all(previous, ec);  // best effort: else the next write does
  release_staging(aside);
  release_staging(staging_);
  staging_.clear();
}

}  // namespace ember
