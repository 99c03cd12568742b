// memfd-backed shared regions: creation, sizing and mapping.
#include "udf/process/shared_region.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "ember/error.h"

namespace ember::process {

namespace {

constexpr size_t kMiB = size_t{1} << 20;

[[noreturn]] void fail(const std::string& what, size_t bytes) {
  throw UdfError("process isolation: " + what + " for a shared-memory region of " +
                 std::to_string(bytes) + " bytes failed: " + std::strerror(errno));
}

}  // namespace

SharedMapping::~SharedMapping() {
  if (data_ != nullptr) ::munmap(data_, size_);
}

size_t region_size_for(size_t needed) {
  const size_t with_headroom = needed + needed / 8;
  return std::max(kMiB, (with_headroom + kMiB - 1) / kMiB * kMiB);
}

SharedRegion SharedRegion::create(const char* name, size_t min_bytes) {
  const size_t size = region_size_for(min_bytes);
  UniqueFd fd(::memfd_create(name, MFD_CLOEXEC));
  if (!fd) fail("memfd_create", size);
  if (::ftruncate(fd.get(), static_cast<off_t>(size)) != 0) fail("ftruncate", size);
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd.get(), 0);
  if (p == MAP_FAILED) fail("mmap", size);
  SharedRegion r;
  r.fd = std::move(fd);
  r.map = std::make_shared<SharedMapping>(static_cast<uint8_t*>(p), size);
  return r;
}

std::shared_ptr<SharedMapping> map_received_region(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail("fstat", 0);
  const auto size = static_cast<size_t>(st.st_size);
  if (size == 0) return std::make_shared<SharedMapping>(nullptr, 0);
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
  if (p == MAP_FAILED) fail("mmap", size);
  return std::make_shared<SharedMapping>(static_cast<uint8_t*>(p), size);
}

}  // namespace ember::process
