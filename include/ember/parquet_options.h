/// \file
/// Options of the Parquet reader and writer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ember {

/// Page compression of written Parquet files.
enum class Compression {
  Snappy,  ///< Snappy (the default)
  Zstd,    ///< Zstandard
  Gzip,    ///< gzip
  None     ///< uncompressed
};

/// How read_parquet reads its files.
struct ParquetOptions {
  /// The columns to read (empty = all). The optimizer also prunes the columns a query does not
  /// use, so naming them is only needed to skip a column ember cannot read (a struct, a map).
  std::vector<std::string> columns;
};

/// How write_parquet writes its files.
struct ParquetWriteOptions {
  Compression compression = Compression::Snappy;  ///< of every page
  /// Rows per row group (the last one of a file may hold fewer); must be >= 1.
  int64_t row_group_rows = 1 << 20;
};

}  // namespace ember
