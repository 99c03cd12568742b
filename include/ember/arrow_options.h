/// \file
/// Options of the Arrow IPC reader and writer.
#pragma once

namespace ember {

/// How read_arrow reads its files (the Arrow IPC file format). It has no settings yet; taking
/// it keeps every reader's shape `(path_or_glob, options)`.
struct ArrowOptions {};

/// How write_arrow writes its files (the Arrow IPC file format, uncompressed). It has no
/// settings yet; taking it keeps every write call's shape `(dir, format options, run options)`.
struct ArrowWriteOptions {};

}  // namespace ember
