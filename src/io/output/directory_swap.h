// Putting a complete directory in the place of another, in one step where the filesystem can.
#pragma once

#include <string>

namespace ember {

/// Puts the directory `from` at `to` (same filesystem), replacing the directory there, if any.
/// Returns where the replaced directory now lies, for the caller to remove: `from` after an
/// exchange, `aside` after the fallback, or "" when `to` did not exist. Where the filesystem
/// can exchange two names atomically (renameat2 with RENAME_EXCHANGE: ext4, xfs, btrfs, tmpfs
/// and most local filesystems), a reader of `to` sees the old or the new directory, never
/// neither and never a mix; elsewhere it falls back to replace_by_moving_aside. A concurrent
/// writer creating or replacing `to` meanwhile is retried, not clobbered blindly. Throws
/// IoError naming both paths; on failure `to` is as it was.
std::string replace_directory(const std::string& from, const std::string& to,
                              const std::string& aside);

/// The fallback where exchange is not supported: renames `to` to `aside`, then `from` to `to`.
/// Between the two renames `to` is missing (a short window, but a reader may see it; a crash
/// inside it leaves both sets, under their hidden names, for the next write to remove). If the
/// second rename fails the first is undone. Returns `aside`, or "" when `to` did not exist.
/// Throws IoError.
std::string replace_by_moving_aside(const std::string& from, const std::string& to,
                                    const std::string& aside);

}  // namespace ember
