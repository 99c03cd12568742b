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
/// A resumable Parquet -> UDF -> Parquet write of 24 partitions under `base`/resume (its input
/// written once), killed when EMBER_TEST_KILL_RANK names a rank, and its output compared with
/// an uninterrupted run's (resume.cpp). `slurm`: the same job under `base`/slurm, whose first run
/// waits part-way until Slurm requeues it (SLURM_RESTART_COUNT tells the runs apart).
int resume(const std::filesystem::path& base, bool slurm);
/// A resumable write after a group-by under `base`/breaker, killed (EMBER_TEST_KILL_RANK) in the
/// pipeline that writes, and its output compared with an uninterrupted run's (resume_breaker.cpp).
int resume_breaker(const std::filesystem::path& base);
/// The same for a write whose pipeline probes a join: the probe side's finished partitions are
/// kept (resume_join.cpp).
int resume_join(const std::filesystem::path& base);
/// One run of a resumable Parquet -> process-actor UDF -> Parquet write of 48 partitions under
/// `base`/loop (its input written once), which a test kills and reruns until it completes
/// (resume_loop.cpp); 1 when the resumed rows are not the resumed partitions'.
int resume_loop(const std::filesystem::path& base);
/// A write to s3://data/out/ on every rank, then one that fails on rank 2 (s3_write.cpp); the
/// server comes from the environment (AWS_ENDPOINT_URL and keys).
int s3_write();
/// Without mpirun, after the loop: the output against an uninterrupted run's, each row once.
int resume_loop_check(const std::filesystem::path& base);

/// Joins run as a hash exchange of both sides, every result's rows sorted (exchange_join.cpp).
int exchange_joins(const std::filesystem::path& dir);
/// Where a join run as a hash exchange ran: explain() and every rank's figures.
int exchange_join_spread(const std::filesystem::path& dir);

}  // namespace cluster_app
