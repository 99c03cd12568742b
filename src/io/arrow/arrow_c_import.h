// Tables in through the Arrow C Stream Interface, the way pyarrow, polars, DuckDB and nanoarrow
// hand data over: every Arrow type the IPC reader reads (small and unsigned integers, float16,
// large and view types, decimals, times, durations, fixed-size binary, dictionaries at any
// depth, structs, maps), converted by the same decoder and the same rules.
#pragma once

#include <functional>

#include "ember/batch.h"
#include "io/arrow/arrow_c_abi.h"

namespace ember::arrow_ipc {

/// Runs a release (a task that calls a producer's release callback) now or later, on a thread
/// the producer allows: Python's producers want the GIL.
using ReleaseRunner = std::function<void(std::function<void()>)>;

/// Reads the whole stream into a Table and releases it. A type ember does not read (union,
/// interval, run-end encoding) is an InvalidArgument naming the column and its format, as is an
/// array that breaks the format (too few buffers or children, offsets past the data) or a
/// uint64 value past int64; a failing stream is an IoError with the producer's message.
/// A buffer already in ember's layout (64-byte aligned, zero padding to the next 64 bytes, as
/// pyarrow and ember export) becomes the column's without a copy, and its record batch is
/// released once no column holds it (by `run_release` when given); other buffers are copied
/// (ember's kernels read through that padding), and a batch lending nothing is released at once.
Table import_c_stream(ArrowArrayStream* stream, const ReleaseRunner& run_release = {});

}  // namespace ember::arrow_ipc
