// What a soak round may leave behind and must not: worker processes and file descriptors.
#pragma once

#include <string>

namespace ember::soak {

/// Live processes (zombies excluded) running this same executable, other than this process.
/// Worker processes are this binary re-executed, so after every query has ended there must be
/// none (a killed writer's workers included, since they die with their driver).
int live_sibling_processes();

/// Open file descriptors of this process (shared-memory regions are memfds, so a leaked
/// region shows here).
int open_descriptors();

/// Waits up to `grace_ms` for live_sibling_processes() to reach 0 and the descriptor count to
/// return to `baseline_fds`. Returns "" when clean, else what is left over.
std::string leftovers(int baseline_fds, int grace_ms);

}  // namespace ember::soak
