// The lazy DataFrame façade: each method adds a logical node; running hands it to the executor.
#include "ember/dataframe.h"

#include "api/dataframe_access.h"
#include "dist/launch.h"
#include "exec/executor.h"
#include "exec/explain.h"
#include "exec/sources/arrow_source.h"
#include "exec/sources/file_scan_source.h"
#include "exec/sources/parquet_source.h"
#include "exec/sources/range_source.h"
#include "exec/sources/table_source.h"
#include "expr/expr_access.h"
#include "expr/type_check.h"
#include "plan/logical_plan.h"

namespace ember {

namespace {

ExprPtr column_ref(const std::string& name) { return detail::ExprAccess::node(col(name)); }

DataFrame frame(NodePtr root) { return detail::DataFrameAccess::make(std::move(root)); }
const NodePtr& root_of(const DataFrame& frame) { return detail::DataFrameAccess::root(frame); }

}  // namespace

DataFrame range(int64_t n, int num_partitions) {
  return frame(make_source(std::make_shared<RangeSource>(n, num_partitions)));
}

DataFrame from_table(Table t, int num_partitions) {
  return frame(make_source(std::make_shared<TableSource>(t, num_partitions)));
}

DataFrame read_csv(std::string path_or_glob, CsvOptions options) {
  return frame(
      make_source(std::make_shared<CsvSource>(std::move(path_or_glob), std::move(options))));
}

DataFrame read_jsonl(std::string path_or_glob, JsonlOptions options) {
  return frame(make_source(std::make_shared<JsonlSource>(std::move(path_or_glob), options)));
}

DataFrame read_parquet(std::string path_or_glob, ParquetOptions options) {
  return frame(
      make_source(std::make_shared<ParquetSource>(std::move(path_or_glob), std::move(options))));
}

DataFrame read_arrow(std::string path_or_glob, ArrowOptions options) {
  return frame(
      make_source(std::make_shared<ArrowSource>(std::move(path_or_glob), std::move(options))));
}

DataFrame DataFrame::select(std::vector<Expr> exprs) const {
  std::vector<ExprPtr> nodes;
  for (auto& e : exprs) nodes.push_back(detail::ExprAccess::node(e));
  return frame(make_project(root_of(*this), std::move(nodes)));
}

DataFrame DataFrame::with_column(std::string name, Expr e) const {
  std::vector<ExprPtr> nodes;
  bool replaced = false;
  for (const auto& f : root_of(*this)->schema.fields()) {
    if (f.name == name) {
      nodes.push_back(detail::ExprAccess::node(e.alias(name)));  // replaces the column in place
      replaced = true;
    } else {
      nodes.push_back(column_ref(f.name));
    }
  }
  if (!replaced) nodes.push_back(detail::ExprAccess::node(e.alias(name)));
  return frame(make_project(root_of(*this), std::move(nodes)));
}

DataFrame DataFrame::where(Expr predicate) const {
  return frame(make_filter(root_of(*this), detail::ExprAccess::node(predicate)));
}

DataFrame DataFrame::limit(int64_t n) const { return frame(make_limit(root_of(*this), n)); }

DataFrame DataFrame::agg(std::vector<Expr> aggregates) const {
  std::vector<ExprPtr> nodes;
  for (const Expr& e : aggregates) nodes.push_back(detail::ExprAccess::node(e));
  return frame(make_aggregate(root_of(*this), std::move(nodes)));
}

DataFrame DataFrame::repartition(int num_partitions) const {
  return frame(make_repartition(root_of(*this), num_partitions));
}

// ---- relational operators

GroupedDataFrame DataFrame::group_by(std::vector<Expr> keys) const {
  return GroupedDataFrame(*this, std::move(keys));
}

GroupedDataFrame DataFrame::group_by(std::vector<std::string> columns) const {
  std::vector<Expr> keys;
  keys.reserve(columns.size());
  for (std::string& name : columns) keys.push_back(col(std::move(name)));
  return GroupedDataFrame(*this, std::move(keys));
}

GroupedDataFrame DataFrame::group_by(std::initializer_list<std::string> columns) const {
  return group_by(std::vector<std::string>(columns));
}

DataFrame GroupedDataFrame::agg(std::vector<Expr> aggregates) const {
  std::vector<ExprPtr> keys, aggs;
  for (const Expr& e : keys_) keys.push_back(detail::ExprAccess::node(e));
  for (const Expr& e : aggregates) aggs.push_back(detail::ExprAccess::node(e));
  return frame(make_group_by(root_of(frame_), std::move(keys), std::move(aggs)));
}

namespace {

std::vector<SortSpec> sort_specs(const std::vector<SortKey>& keys) {
  std::vector<SortSpec> out;
  for (const SortKey& k : keys)
    out.push_back({detail::ExprAccess::node(k.expr), k.descending, k.nulls_first});
  return out;
}

}  // namespace

DataFrame DataFrame::join(const DataFrame& right, std::vector<std::string> on,
                          JoinType type) const {
  return frame(make_join(root_of(*this), root_of(right), std::move(on), type));
}

DataFrame DataFrame::sort(std::vector<SortKey> keys) const {
  return frame(make_sort(root_of(*this), sort_specs(keys)));
}

DataFrame DataFrame::top_k(int64_t n, std::vector<SortKey> keys) const {
  return frame(make_top_k(root_of(*this), n, sort_specs(keys)));
}

DataFrame DataFrame::distinct(std::vector<std::string> columns) const {
  return frame(make_distinct(root_of(*this), std::move(columns)));
}

DataFrame DataFrame::explode(std::string column) const {
  return frame(make_explode(root_of(*this), std::move(column)));
}

Schema DataFrame::schema() const { return root_of(*this)->schema; }

std::string DataFrame::explain(const RunOptions& options) const {
  return explain_plan(root_of(*this), options, dist::runtime().get());
}

Table DataFrame::collect(const RunOptions& options) const { return execute(options).table; }

namespace {

/// Runs `frame`'s query into `out` (a table, or a directory of files). Under mpirun a rank must
/// not run a query alone: ember::init must have made it part of the cluster.
QueryResult run(const DataFrame& frame, const RunOptions& options, const QueryOutput& out) {
  dist::require_init_under_launcher();
  const std::shared_ptr<ClusterRuntime> cluster = dist::runtime();  // held while the query runs
  return execute_plan(root_of(frame), options, out, cluster.get());
}

}  // namespace

QueryResult DataFrame::execute(const RunOptions& options) const {
  return run(*this, options, QueryOutput{});
}

QueryResult DataFrame::write_csv(std::string dir, CsvWriteOptions format,
                                 const RunOptions& options) const {
  QueryOutput out{QueryOutput::Kind::Csv, std::move(dir)};
  out.storage = format.storage;
  return run(*this, options, out);
}

QueryResult DataFrame::write_jsonl(std::string dir, JsonlWriteOptions format,
                                   const RunOptions& options) const {
  QueryOutput out{QueryOutput::Kind::Jsonl, std::move(dir)};
  out.storage = format.storage;
  return run(*this, options, out);
}

QueryResult DataFrame::write_parquet(std::string dir, ParquetWriteOptions format,
                                     const RunOptions& options) const {
  if (format.row_group_rows < 1) {
    throw InvalidArgument("ParquetWriteOptions::row_group_rows must be >= 1, got " +
                          std::to_string(format.row_group_rows));
  }
  QueryOutput out{QueryOutput::Kind::Parquet, std::move(dir)};
  out.parquet = format;
  out.storage = format.storage;
  return run(*this, options, out);
}

QueryResult DataFrame::write_arrow(std::string dir, ArrowWriteOptions format,
                                   const RunOptions& options) const {
  if (format.compression != Compression::None && format.compression != Compression::Zstd &&
      format.compression != Compression::Lz4) {
    throw InvalidArgument(
        "write_arrow: Arrow IPC compresses with Compression::Zstd or Compression::Lz4 (or None), "
        "not " +
        std::string(format.compression == Compression::Gzip ? "Gzip" : "Snappy"));
  }
  QueryOutput out{QueryOutput::Kind::Arrow, std::move(dir)};
  out.arrow = format;
  out.storage = format.storage;
  return run(*this, options, out);
}

}  // namespace ember
