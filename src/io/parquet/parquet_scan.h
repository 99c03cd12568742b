// Planning a Parquet scan: the files of a glob, their footers and schemas, and the partitions
// (one per row group); and reading one partition's columns.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/batch_reader.h"
#include "ember/storage_options.h"
#include "ember/types.h"
#include "io/parquet/parquet_metadata.h"
#include "io/parquet/parquet_schema.h"

namespace ember {

/// One file of a scan: its footer and columns.
struct ParquetFile {
  std::string path;
  int64_t size = 0;
  parquet::FileMetaData meta;
  parquet::FileSchema schema;
  StorageOptions storage = {};  ///< endpoint and credentials of a remote path
};

/// A planned scan. `columns[i]` is the position, among each file's schema columns, of output
/// field i (files must agree on names and types).
struct ParquetScan {
  Schema schema;
  std::vector<std::shared_ptr<const ParquetFile>> files;
  struct Part {
    int file;
    int row_group;
  };
  std::vector<Part> parts;
  std::vector<std::string> column_names;
  /// Struct columns read with only these fields (`schema` has their narrowed types); the
  /// others' leaves are not read at all.
  std::map<std::string, std::set<std::string>> struct_fields;
};

/// Expands the glob, reads every footer, and keeps `columns` (all when empty, in file order).
/// Throws IoError for unreadable files, ParseError naming the file for a corrupt footer, and
/// InvalidArgument for an unknown column or files whose schemas differ.
/// s3:// and http(s):// paths are read with `storage`: one request for each footer (a
/// speculative read of the file's last kFooterGuessBytes), then only the column chunks a
/// partition reads.
ParquetScan plan_parquet_scan(const std::string& path_or_glob,
                              const std::vector<std::string>& columns,
                              const StorageOptions& storage = {});

/// Opens partition `p` of `scan`, reading only `scan.column_names`. Corrupt data is a
/// ParseError naming the file, row group and column. `ahead`: what prefetch_parquet_part(scan,
/// p) returned, whose bytes it reads instead of fetching them again. `scan` outlives the reader.
std::unique_ptr<BatchReader> open_parquet_part(const ParquetScan& scan, int p, int64_t batch_rows,
                                               std::shared_ptr<Prefetched> ahead = nullptr);

/// Starts fetching partition `p`'s column chunks on a thread of its own, when its file is remote
/// (null for a local file, whose reads the page cache serves). A failed fetch is read again
/// by the reader, which reports the failure.
std::shared_ptr<Prefetched> prefetch_parquet_part(const ParquetScan& scan, int p);

/// Reads a footer (for tests and the fuzz target): ParseError naming `path` when corrupt.
/// `size` >= 0 (a listing's) saves asking a server for it.
ParquetFile read_parquet_footer(const std::string& path, const StorageOptions& storage = {},
                                int64_t size = -1);

/// The bytes a footer read takes from the end of a file at first: most footers fit, so one
/// request reads the footer, its length and the magic number together.
inline constexpr int64_t kFooterGuessBytes = int64_t{64} << 10;

}  // namespace ember
