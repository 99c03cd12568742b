// A message between ranks that carries columns: control fields, then the columns in Arrow layout
// (validity, values, data buffers, as process isolation lays them out in shared memory), so a
// batch crosses the network as one message with no per-row encoding.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dist/message_buffer.h"
#include "dist/transport.h"
#include "ember/batch.h"
#include "udf/process/shared_region.h"
#include "udf/process/wire_message.h"

namespace ember::dist {

/// Appends `columns` (named `names`) to the message `head` holds and returns the whole message:
/// head, column descriptors, names, then the buffers at a 64-byte aligned offset. Throws
/// UdfError for a type that cannot travel (lists).
MessageBuffer pack_columns(const process::MessageWriter& head, const std::vector<Column>& columns,
                           const std::vector<std::string>& names);

/// The message pack_columns would build, byte for byte, but as pieces: the head, descriptors
/// and padding in one small buffer, and each column buffer's bytes where the column holds them
/// (kept alive by the message), so that a large batch is sent without being copied first.
/// Sliced strings' offsets are rebased into a small copy; lists are packed (copied) whole.
GatherMessage gather_columns(const process::MessageWriter& head, const std::vector<Column>& columns,
                             const std::vector<std::string>& names);

/// The columns of a message pack_columns built, read by `in` (positioned after the head's
/// fields), wrapped without a copy over `message`, which holds the whole message from its first
/// byte; the columns keep it alive. Throws Error for a malformed message.
struct UnpackedColumns {
  std::vector<Column> columns;
  std::vector<std::string> names;
};
UnpackedColumns unpack_columns(process::MessageReader& in,
                               const std::shared_ptr<process::SharedMapping>& message);

/// `args` as one batch again (rows kept for a batch of no columns).
Batch to_batch(UnpackedColumns unpacked, int64_t rows);

}  // namespace ember::dist
