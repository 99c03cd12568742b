// The hidden directories a write keeps beside its target, named after their owner so that the
// debris of a writer that died (killed, crashed, power lost) can be told from live work.
#pragma once

#include <functional>
#include <string>

namespace ember {

/// What a hidden directory beside a target holds.
enum class StagingRole {
  Staging,  ///< the new set being written (after an exchange: the old set, being removed)
  Retired,  ///< the old set, moved aside where the filesystem cannot exchange two directories
};

/// A fresh name `.<target>.ember-<role>-<host>-<pid>-<random>` for a directory beside the
/// target `target_name`: hidden, so `parent/*` globs skip it; on the same filesystem as the
/// target, so it can be renamed into place; host and pid name its owner. A very long target
/// name is cut short to keep the whole within NAME_MAX. Thread-safe.
std::string staging_name(const std::string& target_name, StagingRole role);

/// The name `.<target>.ember-resume` of the staging directory of a resumable write to
/// `target_name`: the same for every run, so that a rerun finds what a killed one finished.
/// Never taken for debris by remove_dead_staging.
std::string resume_staging_name(const std::string& target_name);

/// Records that this process is using the directory `path` (one named by staging_name), so
/// that remove_dead_staging of this process leaves it alone; release_staging ends that.
/// Thread-safe.
void claim_staging(const std::string& path);
void release_staging(const std::string& path);

/// Removes, from `parent`, the staging and retired directories of `target_name` whose owner is
/// dead: on this host, with a pid that no longer runs, or this process's own pid but not
/// claimed (an abort or removal of its own that failed). Directories of other hosts are left
/// alone (a pid there says nothing here). Best effort: what cannot be removed stays for the
/// next write. `before_removal`, when given, is called with each dead directory's path first.
/// Returns how many it removed. Thread-safe; racing sweepers are harmless.
int remove_dead_staging(const std::string& parent, const std::string& target_name,
                        const std::function<void(const std::string&)>& before_removal = {});

}  // namespace ember
