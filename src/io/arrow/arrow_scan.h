// Reading Arrow IPC files (the file format): the footer's schema and record batch blocks, one
// partition per record batch, columns rebuilt from the batch's buffers.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/batch_reader.h"
#include "ember/storage_options.h"
#include "ember/types.h"

namespace ember {

struct ArrowFile;

struct ArrowScan {
  Schema schema;
  std::vector<std::shared_ptr<const ArrowFile>> files;
  struct Part {
    int file;
    int batch;
  };
  std::vector<Part> parts;
};

/// Expands the glob and reads every file's footer. Throws IoError for unreadable files,
/// ParseError naming the file for a malformed one, InvalidArgument for a column type ember does
/// not read (naming it) or files whose schemas differ. s3:// and http(s):// paths are read
/// with `storage`: one request for each footer, one per record batch.
ArrowScan plan_arrow_scan(const std::string& path_or_glob, const StorageOptions& storage = {});

/// The bytes a footer read takes from the end of a file at first (most footers fit).
inline constexpr int64_t kArrowFooterGuessBytes = int64_t{64} << 10;

/// The path (or URL) of one file of a scan.
const std::string& arrow_file_path(const ArrowFile& file);

/// Partition `p`: one record batch, in batches of at most `batch_rows` rows. A corrupt batch is
/// a ParseError naming the file and the batch.
std::unique_ptr<BatchReader> open_arrow_part(const ArrowScan& scan, int p, int64_t batch_rows);

}  // namespace ember
