/// \file
/// How read_csv parses its files and write_csv writes them.
#pragma once

#include <cstdint>
#include <optional>

#include "ember/storage_options.h"
#include "ember/types.h"

namespace ember {

/// How read_csv parses its files: a header row, then the records, with RFC 4180 quoting; an
/// empty field is a null.
struct CsvOptions {
  char delimiter = ',';  ///< the character between fields
  /// When given, no inference: columns are parsed as these types (names from the schema, which
  /// replace the header's and must be unique). Without it, header names must be unique.
  std::optional<Schema> schema;
  /// Rows sampled from the first file for type inference. A column whose sampled values are all
  /// integers, one of them beyond int64, is a ParseError rather than a silently rounded float64:
  /// give the column's type (float64 or utf8) in `schema`.
  int64_t infer_rows = 1000;
  /// Files larger than this are split into byte ranges, one partition each (0 = never split).
  /// Each range starts at a record start found by one pass over the file that follows its
  /// quoting, so a quoted field with line breaks is never cut, wherever it lies. Pipes and
  /// devices are never split.
  int64_t split_bytes = int64_t{64} << 20;
  /// Endpoint and credentials for s3:// paths (empty fields: from the AWS_* environment and
  /// profile files; see docs/object-storage.md).
  StorageOptions storage = {};
};

/// How write_csv writes its files: a header row, ',' between fields, fields quoted only when
/// they must be, a null as an empty field.
struct CsvWriteOptions {
  /// Endpoint and credentials for an s3:// target (empty fields: from the AWS_* environment
  /// and profile files; see docs/object-storage.md).
  StorageOptions storage = {};
};

}  // namespace ember
