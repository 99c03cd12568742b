// Scenarios of the cluster app that check a UDF's settings are honoured on worker ranks as on
// rank 0: its timeout and its calls per actor (max_concurrency).
#pragma once

#include <filesystem>

namespace cluster_app {

/// A call on rank 1's own partition that runs past the UDF's timeout there: it is timed out and
/// retried on rank 1, counts in UdfStats::timeouts, and every row comes back right.
int udf_timeout_on_a_worker_rank(const std::filesystem::path& dir);

/// max_concurrency(4): each rank's actor runs 4 calls at once, as measured inside the UDF.
int udf_max_concurrency_on_worker_ranks(const std::filesystem::path& dir);

}  // namespace cluster_app
