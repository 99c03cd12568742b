// A resumable write's pieces of output between ranks: what earlier runs journaled of the
// partitions they did not finish (rank 0 to every rank, with the pipeline), and each piece a rank
// commits (to rank 0, which journals it).
#pragma once

#include <map>

#include "io/output/output_journal.h"
#include "udf/process/wire_message.h"

namespace ember::dist {

/// Appends `piece` to `out`: partition, input rows consumed, rows, bytes, last, file name.
void put_piece(process::MessageWriter& out, const JournalPiece& piece);

/// The piece put_piece() wrote. A file name with a '/' is an Error (a piece lives in the staging
/// directory only).
JournalPiece get_piece(process::MessageReader& in);

/// Appends every piece of `partitions` (what earlier runs journaled of unfinished partitions).
void put_unfinished(process::MessageWriter& out, const std::map<int, JournalPartition>& partitions);

/// The partitions put_unfinished() wrote.
std::map<int, JournalPartition> get_unfinished(process::MessageReader& in);

}  // namespace ember::dist
