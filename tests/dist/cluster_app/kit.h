// What the cluster app's scenarios share: the tripling UDF, its inputs, and the checks of a
// query's per-rank figures.
#pragma once

#include <ember/ember.h>

#include <filesystem>
#include <string>

namespace cluster_app {

/// The "triple" UDF (class Triple) with `actors` actors, batches of 100 rows.
ember::Udf triple(int actors, ember::InitArgs args = {});
/// actors_per_rank and inits_per_rank of every UDF, on stderr; false when inits differ from
/// actors on any rank or the actors do not add up to the pool.
bool check_stats(const ember::QueryStats& stats, const char* query);
/// 3 CSV files (x with nulls, name) of 400 rows and 3 JSON-lines files (text) of 300 rows
/// under `dir`.
void write_inputs(const std::filesystem::path& dir);
/// Partitions and rows per rank of a query, on stdout; false unless every rank ran some.
bool show_ranks(const char* query, const ember::QueryStats& stats);

/// The line under explain()'s "Cluster partitions" heading: how the first pipeline's partitions
/// are spread, or why they stay on rank 0.
std::string explain_line(const std::string& text);

}  // namespace cluster_app
