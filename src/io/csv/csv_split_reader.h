// Reading one split of a planned CSV scan as batches.
#pragma once

#include <cstdint>
#include <memory>

#include "core/batch_reader.h"
#include "ember/csv_options.h"
#include "io/csv/csv_row_filter.h"
#include "io/file_split.h"

namespace ember {

/// Reads one split (see plan_csv_scan) as batches of at most `batch_rows` rows, streaming
/// (bounded memory). Throws InvalidArgument for a column type CSV cannot be read as; the reader
/// throws ParseError / IoError naming file, line and field.
///
/// With a `filter`, the rows of plain runs (unquoted records, the common case) that it rejects
/// are dropped as they are parsed, and their other columns are never parsed nor checked; rows
/// parsed the general way (quoted, ragged) are all kept, so the filter must still run above.
std::unique_ptr<BatchReader> open_csv_split(const FileSplit& split, const Schema& schema,
                                            const CsvOptions& options, int64_t batch_rows,
                                            std::shared_ptr<const CsvRowFilter> filter = nullptr);

}  // namespace ember
