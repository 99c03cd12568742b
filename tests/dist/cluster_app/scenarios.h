// The cluster app's scenarios that live in files of their own (main.cpp dispatches to them).
#pragma once

#include <filesystem>

namespace cluster_app {

/// The same queries under any launch (queries.cpp): every table to stdout in full, compared with
/// the local executor's; 1 when a UDF's actors and inits per rank do not add up.
int queries(const std::filesystem::path& dir);
/// Partitions, aggregates, top-k and joins on every rank, explain() and failures (spread.cpp).
int spread(const std::filesystem::path& dir);
/// Each rank's share of the bytes read and written for a Parquet input of 30 row groups.
int bytes(const std::filesystem::path& dir);

}  // namespace cluster_app
