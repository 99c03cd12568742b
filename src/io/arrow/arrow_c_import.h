// Tables in through the Arrow C Stream Interface, the way pyarrow, polars, DuckDB and nanoarrow
// hand data over: every Arrow type the IPC reader reads (small and unsigned integers, float16,
// large and view types, decimals, times, durations, fixed-size binary, dictionaries at any
// depth, structs, maps), converted by the same decoder and the same rules.
#pragma once

#include "ember/batch.h"
#include "io/arrow/arrow_c_abi.h"

namespace ember::arrow_ipc {

/// Reads the whole stream into a Table and releases it. A type ember does not read (union,
/// interval, run-end encoding) is an InvalidArgument naming the column and its format, as is an
/// array that breaks the format (too few buffers or children, offsets past the data) or a
/// uint64 value past int64; a failing stream is an IoError with the producer's message. The
/// values are copied into ember's buffers (whose padding and alignment ember's kernels rely
/// on); the producer's arrays are released batch by batch.
Table import_c_stream(ArrowArrayStream* stream);

}  // namespace ember::arrow_ipc
