// Directory replacement by exchange, or by two renames; see directory_swap.h.
#include "io/output/directory_swap.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "ember/error.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

namespace ember {
namespace {

enum class Exchange { Done, TargetMissing, Unsupported };

[[noreturn]] void fail_to_replace(const std::string& from, const std::string& to, int error) {
  throw IoError("cannot replace output directory '" + to + "' by its staged copy '" + from +
                "': " + std::strerror(error));
}

Exchange exchange(const std::string& from, const std::string& to) {
#ifdef SYS_renameat2
  // Through syscall(): the libc wrapper is missing from older C libraries.
  if (::syscall(SYS_renameat2, AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_EXCHANGE) == 0)
    return Exchange::Done;
  const int error = errno;
  if (error == ENOENT) return Exchange::TargetMissing;  // `from` is ours and exists
  // EINVAL: the filesystem cannot exchange; ENOSYS: the kernel is older than 3.15.
  if (error == EINVAL || error == ENOSYS || error == EOPNOTSUPP) return Exchange::Unsupported;
  fail_to_replace(from, to, error);
#else
  (void)from;
  (void)to;
  return Exchange::Unsupported;
#endif
}

}  // namespace

std::string replace_directory(const std::string& from, const std::string& to,
                              const std::string& aside) {
  // Another writer may create or replace `to` between our steps; each retry sees its result.
  for (int attempt = 0; attempt < 5; ++attempt) {
    switch (exchange(from, to)) {
      case Exchange::Done:
        return from;
      case Exchange::Unsupported:
        return replace_by_moving_aside(from, to, aside);
      case Exchange::TargetMissing:
        if (::rename(from.c_str(), to.c_str()) == 0) return "";
        if (errno != EEXIST && errno != ENOTEMPTY) fail_to_replace(from, to, errno);
        break;  // `to` appeared meanwhile: exchange with it
    }
  }
  fail_to_replace(from, to, EBUSY);  // other writers kept changing `to` under us
}

std::string replace_by_moving_aside(const std::string& from, const std::string& to,
                                    const std::string& aside) {
  bool moved_aside = true;
  if (::rename(to.c_str(), aside.c_str()) != 0) {
    if (errno != ENOENT) {
      throw IoError("cannot move the previous output '" + to + "' aside to '" + aside +
                    "': " + std::strerror(errno));
    }
    moved_aside = false;
  }
  if (::rename(from.c_str(), to.c_str()) != 0) {
    const int error = errno;
    if (moved_aside) (void)::rename(aside.c_str(), to.c_str());  // put the old set back
    fail_to_replace(from, to, error);
  }
  return moved_aside ? aside : "";
}

}  // namespace ember
