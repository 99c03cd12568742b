/// \file
/// Options of the JSON-lines reader and writer.
#pragma once

#include <cstdint>

#include "ember/storage_options.h"

namespace ember {

/// How read_jsonl reads its files: one JSON object per line; its keys are the columns.
struct JsonlOptions {
  /// Non-blank lines sampled (from the first files) to infer the columns and their types.
  int64_t infer_rows = 1000;
  /// Files larger than this are split into byte ranges at line starts, one partition each
  /// (0 = never split).
  int64_t split_bytes = int64_t{64} << 20;
  /// Endpoint and credentials for s3:// paths (empty fields: from the AWS_* environment and
  /// profile files; see docs/object-storage.md).
  StorageOptions storage = {};
};

/// How write_jsonl writes its files: one object per row, keys in column order, a null as
/// JSON null.
struct JsonlWriteOptions {
  /// Endpoint and credentials for an s3:// target (empty fields: from the AWS_* environment
  /// and profile files; see docs/object-storage.md).
  StorageOptions storage = {};
};

}  // namespace ember
