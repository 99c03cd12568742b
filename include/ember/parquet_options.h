/// \file
/// Options of the Parquet reader and writer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ember/storage_options.h"

namespace ember {

/// Compression of written files: Parquet pages (any of them) and Arrow IPC record batch bodies
/// (None, Zstd or Lz4).
enum class Compression {
  Snappy,  ///< Snappy (Parquet's default)
  Zstd,    ///< Zstandard
  Gzip,    ///< gzip
  None,    ///< uncompressed
  Lz4      ///< LZ4: Parquet's LZ4_RAW, Arrow's LZ4 frames
};

/// How read_parquet reads its files.
struct ParquetOptions {
  /// The columns to read (empty = all). The optimizer also prunes the columns a query does not
  /// use, so naming them is only needed to skip a column ember cannot read (a struct, a map).
  std::vector<std::string> columns;
  /// Endpoint and credentials for s3:// paths (empty fields: from the AWS_* environment and
  /// profile files; see docs/object-storage.md).
  StorageOptions storage = {};
};

/// How write_parquet writes its files.
struct ParquetWriteOptions {
  Compression compression = Compression::Snappy;  ///< of every page
  /// Rows per row group (the last one of a file may hold fewer); must be >= 1.
  int64_t row_group_rows = 1 << 20;
  /// Endpoint and credentials for an s3:// target (empty fields: from the AWS_* environment
  /// and profile files; see docs/object-storage.md).
  StorageOptions storage = {};
};

}  // namespace ember
