// Reading one split of a planned CSV scan as batches.
#pragma once

#include <cstdint>
#include <memory>

#include "core/batch_reader.h"
#include "ember/csv_options.h"
#include "io/file_split.h"

namespace ember {

/// Reads one split (see plan_csv_scan) as batches of at most `batch_rows` rows, streaming
/// (bounded memory). Throws InvalidArgument for a column type CSV cannot be read as; the reader
/// throws ParseError / IoError naming file, line and field.
std::unique_ptr<BatchReader> open_csv_split(const FileSplit& split, const Schema& schema,
                                            const CsvOptions& options, int64_t batch_rows);

}  // namespace ember
