// Reading one split of a planned JSON-lines scan as batches.
#pragma once

#include <cstdint>
#include <memory>

#include "core/batch_reader.h"
#include "ember/types.h"
#include "io/file_split.h"

namespace ember {

/// Reads one split (see plan_jsonl_scan) as batches of at most `batch_rows` rows, streaming
/// (bounded memory). Keys not in `schema` are ignored; a value of the wrong type, or malformed
/// JSON, is a ParseError "file:line:column:" (column = byte column of the key, 1 when unknown).
std::unique_ptr<BatchReader> open_jsonl_split(const FileSplit& split, const Schema& schema,
                                              int64_t batch_rows);

}  // namespace ember
