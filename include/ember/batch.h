/// \file
/// Record batches and collected tables.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ember/column.h"
#include "ember/types.h"

namespace ember {

/// A record batch: equal-length named columns. Immutable, cheap to copy.
class Batch {
 public:
  Batch() = default;  ///< no columns and no rows
  /// Throws InvalidArgument when the columns do not match the schema (count, type, length).
  Batch(Schema schema, std::vector<Column> columns);
  /// A batch with no columns but `num_rows` rows (e.g. for a UDF called with no arguments).
  static Batch empty_with_rows(int64_t num_rows);

  /// Rows in each column.
  int64_t num_rows() const { return num_rows_; }
  /// Number of columns.
  int num_columns() const { return static_cast<int>(columns_.size()); }
  /// The columns' names and types.
  const Schema& schema() const { return schema_; }
  /// Column `i` (0-based); std::out_of_range past the end.
  const Column& column(int i) const { return columns_.at(static_cast<size_t>(i)); }
  /// Throws InvalidArgument naming the missing column and the ones that exist.
  const Column& column(std::string_view name) const;
  /// Every column, in schema order.
  const std::vector<Column>& columns() const { return columns_; }

  /// Zero-copy row slice.
  Batch slice(int64_t offset, int64_t length) const;
  /// Rows where `mask` is true.
  Batch filter(const Column& mask) const;
  /// Concatenates batches of one schema.
  static Batch concat(const std::vector<Batch>& parts);
  /// Bytes the rows occupy in the columns' buffers (Column::byte_size, summed).
  int64_t byte_size() const;

 private:
  Schema schema_;
  std::vector<Column> columns_;
  int64_t num_rows_ = 0;
};

/// A collected result: batches of one schema, in order.
class Table {
 public:
  Table() = default;  ///< no columns and no batches
  /// Throws InvalidArgument when a batch's schema is not `schema`.
  Table(Schema schema, std::vector<Batch> batches);
  /// A one-batch table from named columns.
  static Table from_columns(std::vector<std::pair<std::string, Column>> columns);

  /// Rows over all batches.
  int64_t num_rows() const { return num_rows_; }
  /// The columns' names and types, shared by every batch.
  const Schema& schema() const { return schema_; }
  /// The batches, in order.
  const std::vector<Batch>& batches() const { return batches_; }
  /// All batches of column `name` concatenated. Throws InvalidArgument if absent.
  Column column(std::string_view name) const;
  /// Aligned text table of the first `max_rows` rows, with the row count below.
  std::string to_string(int64_t max_rows = 20) const;

 private:
  Schema schema_;
  std::vector<Batch> batches_;
  int64_t num_rows_ = 0;
};

}  // namespace ember
