// A query's source as a message, so that another rank makes the same source again: a CSV,
// JSON-lines, Parquet or Arrow scan (with its storage options, pushed-down filter, pruned
// columns and row groups), a range, or a table in memory whole.
#pragma once

#include <cstdint>

#include "plan/logical_node.h"
#include "plan/source.h"
#include "udf/process/wire_message.h"

namespace ember::dist {

/// Writes `source`; a source no other rank can make (an intermediate result) is NotSpreadable.
void put_source(process::MessageWriter& out, const Source& source);
/// The source put_source wrote, as a source node.
NodePtr get_source(process::MessageReader& in);
/// Roughly the bytes `source` holds (its files' sizes, a table's buffers): what every rank reads
/// again when it is a join's right side.
int64_t source_bytes(const Source& source);

}  // namespace ember::dist
