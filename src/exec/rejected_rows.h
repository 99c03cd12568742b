// The rows a UDF failed on under OnError::Null or OnError::Skip, and the rows whose file a
// url_download under OnError::Null could not fetch: gathered from every partition, counted
// against a UDF's max_failed_rows, and returned in input order as QueryResult::rejected.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/batch.h"
#include "udf/failure_policy.h"

namespace ember {

/// One UDF's (or one url_download's) rejected rows for one query. Thread-safe: partitions add
/// concurrently.
class RejectedRows {
 public:
  /// For the UDF whose policy is `policy` (its name and max_failed_rows).
  explicit RejectedRows(FailurePolicy policy);
  /// For a step without a limit on failed rows (a url_download), named `name` in the table.
  explicit RejectedRows(std::string name);

  /// Records the failed rows of chunk `chunk` (the partition's chunks count up from 0) of
  /// `partition`: `args` holds their argument values, one row per failure, and `errors` the
  /// message of each. Throws UdfError once more than max_failed_rows rows have failed in the
  /// query (the rows are recorded first, so the count says how many).
  void add(int partition, int64_t chunk, const Batch& args, const std::vector<std::string>& errors);
  /// The rows recorded for `partition` so far, by chunk, as batches() returns them; they are
  /// no longer held here (still counted). A worker rank of the cluster runner sends them on to
  /// rank 0 at the partition's end.
  std::vector<std::pair<int64_t, Batch>> take_partition(int partition);
  /// Records rows another rank recorded for chunk `chunk` of `partition` (as take_partition
  /// gave them there); throws UdfError past max_failed_rows, counting every rank's rows.
  void adopt(int partition, int64_t chunk, Batch rows);
  const std::string& udf() const { return name_; }
  /// Rows recorded so far.
  int64_t count() const;
  /// Columns `udf`, `error`, then the argument columns; rows in input order (partition, then
  /// chunk, then row). Empty when none failed.
  std::vector<Batch> batches() const;

 private:
  std::string name_;
  std::optional<FailurePolicy> policy_;  ///< none: no max_failed_rows
  void check(int64_t total, const std::string& latest) const {
    if (policy_) policy_->check_failed_rows(total, latest);
  }
  mutable std::mutex mu_;
  std::map<std::pair<int, int64_t>, Batch> rows_;  // guarded by mu_
  int64_t count_ = 0;                              // guarded by mu_
};

/// QueryResult::rejected: every UDF's (and url_download's) rejected rows, one after another. Its
/// columns are `udf` and `error`, then the argument columns of the UDFs that rejected rows, by name
/// (null where a row's UDF has no such argument; an argument whose name another UDF uses with a
/// different type is named "udf.argument").
Table rejected_table(const std::vector<const RejectedRows*>& per_udf);

}  // namespace ember
