// Reading Arrow IPC files (the file format): the footer's schema and record batch blocks, one
// partition per record batch, columns rebuilt from the batch's buffers.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/batch_reader.h"
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
/// not read (naming it) or files whose schemas differ.
ArrowScan plan_arrow_scan(const std::string& path_or_glob);

/// Partition `p`: one record batch, in batches of at most `batch_rows` rows. A corrupt batch is
/// a ParseError naming the file and the batch.
std::unique_ptr<BatchReader> open_arrow_part(const ArrowScan& scan, int p, int64_t batch_rows);

}  // namespace ember
