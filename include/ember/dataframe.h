/// \file
/// Lazy dataframes: how a query is built and run.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/arrow_options.h"
#include "ember/batch.h"
#include "ember/csv_options.h"
#include "ember/expr.h"
#include "ember/init.h"
#include "ember/join_type.h"
#include "ember/jsonl_options.h"
#include "ember/parquet_options.h"
#include "ember/query_stats.h"
#include "ember/run_options.h"
#include "ember/types.h"

namespace ember {

namespace detail {
struct DataFrameAccess;
}  // namespace detail

class GroupedDataFrame;

/// One key of sort() / top_k(): an expression over the frame and its direction. Nulls go last
/// unless nulls_first, in either direction.
struct SortKey {
  Expr expr;                 ///< the value to order by
  bool descending = false;   ///< largest first
  bool nulls_first = false;  ///< nulls before every value instead of after
};

/// A lazy query. Every method returns a new DataFrame; nothing runs until collect/execute/write.
class DataFrame {
 public:
  /// One column per expression (at least one), in order, named by its alias, its column, its
  /// UDF's name, or else its text (Expr::to_string).
  DataFrame select(std::vector<Expr> exprs) const;
  /// This frame's columns with `e` as the column `name`: in place of the column of that name,
  /// or after the others when there is none.
  DataFrame with_column(std::string name, Expr e) const;
  /// The rows where `predicate` is true (null counts as false). TypeError unless it is bool.
  DataFrame where(Expr predicate) const;
  /// The first `n` rows, in partition order then row order. InvalidArgument when n < 0.
  DataFrame limit(int64_t n) const;
  /// A global aggregate: one row, one column per expression, each an aggregate over this
  /// frame's rows, e.g. agg({col("x").sum(), col("x").max().alias("top")}). Column names are
  /// the inputs' names unless aliased. Partitions aggregate in parallel; partial results merge
  /// in partition order, so float sums are the same on every run.
  DataFrame agg(std::vector<Expr> aggregates) const;
  /// The same rows, in order, cut into `num_partitions` partitions (>= 1) for the operators
  /// that follow. Materialises its input. InvalidArgument when num_partitions < 1.
  DataFrame repartition(int num_partitions) const;

  // ---- relational operators
  /// Groups rows by the values of `keys` (columns or expressions; nulls form one group) for
  /// GroupedDataFrame::agg. Unknown columns are an InvalidArgument, keys of a type that cannot
  /// be compared a TypeError, when agg() builds the plan.
  GroupedDataFrame group_by(std::vector<Expr> keys) const;
  /// group_by over columns by name: group_by({"k1", "k2"}) is group_by({col("k1"), col("k2")}).
  GroupedDataFrame group_by(std::vector<std::string> columns) const;
  /// group_by({"k1", "k2"}) itself: a braced list of names (which std::vector<Expr> would
  /// otherwise also take, as a pair of char iterators).
  GroupedDataFrame group_by(std::initializer_list<std::string> columns) const;
  /// Rows of this frame (left) and `right` whose `on` columns are equal; null keys never
  /// match. The output has this frame's columns, then right's other columns (semi and anti:
  /// this frame's only); each key appears once, under its name (right and full joins take the
  /// right row's key where no left row matched). A right column whose name is taken gets the
  /// suffix "_right" (repeated until unique). The right side is built into a hash table; this
  /// side streams through it, in order, matches in right-side order. InvalidArgument for a
  /// missing key; TypeError naming both columns when key types differ.
  DataFrame join(const DataFrame& right, std::vector<std::string> on,
                 JoinType type = JoinType::Inner) const;
  /// Every row, ordered by `keys` (the first key first); stable: rows with equal keys keep
  /// their input order. Floats: NaN above every number. Each partition sorts its rows on its
  /// own thread, then the sorted runs merge. TypeError for a key that cannot be ordered.
  DataFrame sort(std::vector<SortKey> keys) const;
  /// The first `n` rows of sort(keys), keeping at most n rows per partition as it runs;
  /// sort(keys).limit(n) becomes this in the optimizer. InvalidArgument when n < 0.
  DataFrame top_k(int64_t n, std::vector<SortKey> keys) const;
  /// One row per distinct value of `columns` (all columns when empty), the first such row in
  /// input order; rows come out sorted by those columns, as group_by's do. InvalidArgument
  /// naming an unknown column.
  DataFrame distinct(std::vector<std::string> columns = {}) const;

  /// Output schema (types checked).
  Schema schema() const;
  /// Logical plan, optimized plan, actor pools and the resource budget.
  std::string explain(const RunOptions& options = {}) const;
  /// Runs the query and returns its rows: execute(options).table.
  Table collect(const RunOptions& options = {}) const;
  /// Runs the query: its rows, its figures, and the rows its UDFs rejected.
  QueryResult execute(const RunOptions& options = {}) const;
  /// One file per partition (part-NNNNN.csv) plus an empty _SUCCESS marker. The directory is
  /// replaced as a whole, in one atomic step, only when the whole query succeeded; a failed or
  /// killed query leaves the previous output untouched (docs/design/write_protocol.md). Throws
  /// InvalidArgument, before any work runs, for a directory holding files ember did not write
  /// or one that the query itself reads. Returns what execute() returns, with an empty table:
  /// the query's stats.
  QueryResult write_csv(std::string dir, CsvWriteOptions format = {},
                        const RunOptions& options = {}) const;
  /// As write_csv, with part-NNNNN.jsonl files.
  QueryResult write_jsonl(std::string dir, JsonlWriteOptions format = {},
                          const RunOptions& options = {}) const;

  // ---- Parquet and Arrow IPC
  /// As write_csv, with part-NNNNN.parquet files: row groups of `format.row_group_rows`
  /// rows, dictionary pages for low-cardinality strings, min/max statistics and null counts.
  /// Lists (and fixed_size_lists, which Parquet stores as lists) are written as LIST columns.
  QueryResult write_parquet(std::string dir, ParquetWriteOptions format = {},
                            const RunOptions& options = {}) const;
  /// As write_csv, with part-NNNNN.arrow files in the Arrow IPC file format (one record batch
  /// per batch of rows), which pyarrow, polars and DuckDB open as they are.
  QueryResult write_arrow(std::string dir, ArrowWriteOptions format = {},
                          const RunOptions& options = {}) const;

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

/// A frame grouped by key expressions, waiting for its aggregates.
class GroupedDataFrame {
 public:
  /// One row per distinct key: the key columns, then one column per aggregate (the aggregates
  /// of agg(), plus count_distinct() and first()). Rows come out sorted by the keys, ascending,
  /// nulls last, unless a sort follows. Partitions pre-aggregate in parallel; partial results
  /// merge per key-hash partition in partition order, so float sums are the same on every run.
  DataFrame agg(std::vector<Expr> aggregates) const;

 private:
  friend class DataFrame;
  GroupedDataFrame(DataFrame frame, std::vector<Expr> keys)
      : frame_(std::move(frame)), keys_(std::move(keys)) {}
  DataFrame frame_;
  std::vector<Expr> keys_;
};

/// One int64 column "id" = 0..n-1.
DataFrame range(int64_t n, int num_partitions = 1);
/// The rows of `t`, cut into `num_partitions` partitions (>= 1) of about equal size.
DataFrame from_table(Table t, int num_partitions = 1);
/// Header row, type inference over a sample; a glob reads many files.
DataFrame read_csv(std::string path_or_glob, CsvOptions options = {});
/// One JSON object per line; the columns and their types are inferred over a sample.
DataFrame read_jsonl(std::string path_or_glob, JsonlOptions options = {});

// ---- Parquet and Arrow IPC
/// Parquet files: one partition per row group; only the columns the query reads are read, and
/// a where() on a column with min/max statistics skips the row groups that cannot match.
DataFrame read_parquet(std::string path_or_glob, ParquetOptions options = {});
/// Arrow IPC files (the file format, uncompressed): one partition per record batch.
DataFrame read_arrow(std::string path_or_glob, ArrowOptions options = {});

}  // namespace ember
