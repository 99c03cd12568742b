// Where CSV records start: a quote-aware pass over a file that moves byte-range cut points to
// record starts, so that a split never begins inside a quoted field.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ember/storage_options.h"

namespace ember {

/// For each of `cuts` (ascending offsets into the CSV file at `path`), the offset of the first
/// record that starts at or after it, where records are what CsvRecordReader reads from the
/// start of the file: quotes, doubled quotes, bare quotes inside unquoted fields and the three
/// line breaks are all followed exactly. (A start may be that of a blank line, which a reader
/// skips.) Offsets come back in the order of `cuts`, but fewer of them when the rest cannot be
/// found: no record starts after a cut, or the pass met a quoted field that never closes or a
/// character after a closing quote. The rest of the file then stays in one split, whose reader
/// reports any error with its line. Reads the file once, up to the record after the last cut,
/// with large pread(2) calls (not mmap: a file truncated meanwhile must not crash the process),
/// or large ranged GETs for an s3:// or http(s):// path (with `storage`; `size` >= 0 saves
/// asking for it). Throws IoError.
std::vector<int64_t> find_csv_record_starts(const std::string& path, char delimiter,
                                            const std::vector<int64_t>& cuts,
                                            const StorageOptions& storage = {}, int64_t size = -1);

}  // namespace ember
