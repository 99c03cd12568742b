// Options of the Parquet reader and writer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ember {

/// Page compression of written Parquet files.
enum class Compression { Snappy, Zstd, Gzip, None };

struct ParquetOptions {
  /// The columns to read (empty = all). The optimizer also prunes the columns a query does not
  /// use, so naming them is only needed to skip a column ember cannot read (a struct, a map).
  std::vector<std::string> columns;
};

struct ParquetWriteOptions {
  Compression compression = Compression::Snappy;
  /// Rows per row group (the last one of a file may hold fewer); must be >= 1.
  int64_t row_group_rows = 1 << 20;
};

}  // namespace ember
