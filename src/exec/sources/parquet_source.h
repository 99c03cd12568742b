// The Parquet scan as a Source: one partition per row group, only the columns the query reads,
// and row groups whose statistics rule out a filter skipped.
#pragma once

#include <string>

#include "ember/parquet_options.h"
#include "io/parquet/parquet_scan.h"
#include "plan/source.h"

namespace ember {

class ParquetSource : public Source {
 public:
  ParquetSource(std::string pattern, ParquetOptions options);
  const Schema& schema() const override { return scan_.schema; }
  int num_partitions() const override { return static_cast<int>(scan_.parts.size()); }
  std::unique_ptr<BatchReader> open(int p, int64_t batch_rows) const override;
  /// Remote files: the row group's column chunks, fetched on a thread of their own.
  std::shared_ptr<Prefetched> prefetch(int p) const override;
  std::unique_ptr<BatchReader> open_prefetched(int p, int64_t batch_rows,
                                               std::shared_ptr<Prefetched> ahead) const override;
  std::string describe() const override;
  void accept(SourceVisitor& v) const override { v.visit(*this); }
  std::vector<std::string> files() const override;
  std::shared_ptr<const Source> with_columns(const std::set<std::string>& columns) const override;
  std::shared_ptr<const Source> with_struct_fields(
      const std::map<std::string, std::set<std::string>>& fields) const override;
  std::shared_ptr<const Source> with_filter(const ExprPtr& predicate) const override;

  // What it was made from and narrowed to, so that the cluster runner can make the same scan
  // on another rank: the glob, the columns it reads, and the row groups it kept (`file` indexes
  // files()), of how many before statistics skipped some.
  const std::string& pattern() const { return pattern_; }
  const StorageOptions& storage() const { return storage_; }
  const std::vector<std::string>& columns() const { return scan_.column_names; }
  const std::map<std::string, std::set<std::string>>& struct_fields() const {
    return scan_.struct_fields;
  }
  const std::vector<ParquetScan::Part>& row_groups() const { return scan_.parts; }
  int64_t skipped_row_groups() const { return skipped_; }
  /// The scan of `pattern` reading `columns` (the `struct_fields` of struct columns) of the row
  /// groups `parts` only (the footers read again here). Error when the glob names other files here
  /// than `files` (the same files another rank's scan read, in order): every rank must see the same
  /// files.
  static std::shared_ptr<const ParquetSource> narrowed(
      std::string pattern, const StorageOptions& storage, const std::vector<std::string>& files,
      const std::vector<std::string>& columns,
      const std::map<std::string, std::set<std::string>>& struct_fields,
      std::vector<ParquetScan::Part> parts, int64_t skipped);

 private:
  ParquetSource() = default;
  /// Narrows the struct columns named in `fields` to those fields; false when none changed.
  bool narrow_structs(const std::map<std::string, std::set<std::string>>& fields);
  std::string pattern_;
  StorageOptions storage_;
  ParquetScan scan_;
  int64_t skipped_ = 0;  ///< row groups ruled out by statistics
};

}  // namespace ember
