/// \file
/// Options of the Arrow IPC reader and writer.
#pragma once

#include "ember/parquet_options.h"
#include "ember/storage_options.h"

namespace ember {

/// How read_arrow reads its files (the Arrow IPC file format).
struct ArrowOptions {
  /// Endpoint and credentials for s3:// paths (empty fields: from the AWS_* environment and
  /// profile files; see docs/object-storage.md).
  StorageOptions storage = {};
};

/// How write_arrow writes its files (the Arrow IPC file format, or the stream format).
struct ArrowWriteOptions {
  /// Of each record batch's buffers (the IPC format's BodyCompression): None, Zstd or Lz4 (LZ4
  /// frames); a buffer that would not shrink is stored as it is. Another value is an
  /// InvalidArgument. pyarrow, polars and DuckDB read all three.
  Compression compression = Compression::None;
  /// The IPC stream format (`part-NNNNN.arrows`: messages one after another, no footer), as
  /// pipes, Arrow Flight and `pyarrow.ipc.open_stream` take it, instead of the file format
  /// (`part-NNNNN.arrow`). read_arrow reads both.
  bool stream = false;
  /// Endpoint and credentials for an s3:// target (empty fields: from the AWS_* environment
  /// and profile files; see docs/object-storage.md).
  StorageOptions storage = {};
};

}  // namespace ember
