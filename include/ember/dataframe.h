// Lazy dataframes: how a query is built and run.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/batch.h"
#include "ember/csv_options.h"
#include "ember/expr.h"
#include "ember/init.h"
#include "ember/parquet_options.h"
#include "ember/query_stats.h"
#include "ember/run_options.h"
#include "ember/types.h"

namespace ember {

namespace detail {
struct DataFrameAccess;
}  // namespace detail

/// A lazy query. Every method returns a new DataFrame; nothing runs until collect/execute/write.
class DataFrame {
 public:
  DataFrame select(std::vector<Expr> exprs) const;
  DataFrame with_column(std::string name, Expr e) const;
  DataFrame where(Expr predicate) const;
  DataFrame limit(int64_t n) const;
  /// A global aggregate: one row, one column per expression, each an aggregate over this
  /// frame's rows, e.g. agg({col("x").sum(), col("x").max().alias("top")}). Column names are
  /// the inputs' names unless aliased. Partitions aggregate in parallel; partial results merge
  /// in partition order, so float sums are the same on every run.
  DataFrame agg(std::vector<Expr> aggregates) const;
  DataFrame repartition(int num_partitions) const;
  /// Output schema (types checked).
  Schema schema() const;
  /// Logical plan, optimized plan, actor pools and the resource budget.
  std::string explain(const RunOptions& options = {}) const;
  Table collect(const RunOptions& options = {}) const;
  QueryResult execute(const RunOptions& options = {}) const;
  /// One file per partition (part-NNNNN.csv) plus an empty _SUCCESS marker. The directory is
  /// replaced as a whole, in one atomic step, only when the whole query succeeded; a failed or
  /// killed query leaves the previous output untouched (docs/write_protocol.md). Throws
  /// InvalidArgument, before any work runs, for a directory holding files ember did not write
  /// or one that the query itself reads.
  void write_csv(std::string dir, const RunOptions& options = {}) const;
  /// As write_csv, with part-NNNNN.jsonl files.
  void write_jsonl(std::string dir, const RunOptions& options = {}) const;

  // ---- Parquet and Arrow IPC
  /// As write_csv, with part-NNNNN.parquet files: row groups of `options.row_group_rows`
  /// rows, dictionary pages for low-cardinality strings, min/max statistics and null counts.
  /// Lists (and fixed_size_lists, which Parquet stores as lists) are written as LIST columns.
  void write_parquet(std::string dir, ParquetWriteOptions options = {},
                     const RunOptions& run = {}) const;
  /// As write_csv, with part-NNNNN.arrow files in the Arrow IPC file format (one record batch
  /// per batch of rows), which pyarrow, polars and DuckDB open as they are.
  void write_arrow(std::string dir, const RunOptions& options = {}) const;

  // ---- nested data
  /// One row per item of the list column `column` (which then holds the item), the other
  /// columns repeated; a null or empty list gives no row (as DuckDB's unnest). Order is kept.
  DataFrame explode(std::string column) const;

 private:
  friend struct detail::DataFrameAccess;
  struct Plan;  ///< the query plan behind a frame; shared, so frames are cheap to copy
  explicit DataFrame(std::shared_ptr<const Plan> plan) : plan_(std::move(plan)) {}
  std::shared_ptr<const Plan> plan_;
};

/// One int64 column "id" = 0..n-1.
DataFrame range(int64_t n, int num_partitions = 1);
DataFrame from_table(Table t, int num_partitions = 1);
/// Header row, type inference over a sample; a glob reads many files.
DataFrame read_csv(std::string path_or_glob, CsvOptions options = {});
DataFrame read_jsonl(std::string path_or_glob);

// ---- Parquet and Arrow IPC
/// Parquet files: one partition per row group; only the columns the query reads are read, and
/// a where() on a column with min/max statistics skips the row groups that cannot match.
DataFrame read_parquet(std::string path_or_glob, ParquetOptions options = {});
/// Arrow IPC files (the file format, uncompressed): one partition per record batch.
DataFrame read_arrow(std::string path_or_glob);

}  // namespace ember
