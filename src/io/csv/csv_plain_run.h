// The CSV reader's fast path: a run of consecutive "plain" records found 64 bytes at a time.
// Most CSV records hold no quote at all; their fields need no unquoting, so the positions of
// the separators alone describe them, and the fields can then be parsed a column at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace ember {

/// Separator positions of a run of plain records: records without any '"', with exactly `width`
/// fields, not blank, each ended by a line break ('\n', "\r\n" or a lone '\r'). Views into the
/// scanned bytes; valid while they are.
struct CsvPlainRun {
  const char* base = nullptr;  ///< first byte of the first record
  size_t width = 0;            ///< fields per record
  size_t rows = 0;
  bool non_ascii = false;  ///< some scanned byte is not ASCII: utf8 fields must be validated
  /// ends[r * width + c]: offset from `base` of the separator (delimiter, '\n' or lone '\r') that
  /// ends field c of record r. Sized for the largest run asked for, so only the first rows*width
  /// count.
  std::vector<uint32_t> ends;

  /// First byte of record `r`.
  const char* record_begin(size_t r) const {
    return r == 0 ? base : base + ends[r * width - 1] + 1;
  }
  /// Field `c` of record `r`, without the '\r' of a "\r\n" line end.
  std::string_view field(size_t r, size_t c) const {
    const size_t i = r * width + c;
    const uint32_t first = i == 0 ? 0 : ends[i - 1] + 1;
    uint32_t last = ends[i];
    if (c + 1 == width && last > first && base[last - 1] == '\r') --last;
    return {base + first, last - first};
  }
};

/// Indexes the plain records that start at `begin` into `run` and returns one past the last
/// one (`begin` when there are none). It stops before the first record that is not plain, that
/// is not ended by a line break before `end`, or that starts more than `last_start` bytes after
/// `begin` (a split's end; negative: none may start), and after `max_rows` records.
/// `*end` must be '\n' and 63 readable bytes must follow it (ChunkedFile's sentinel and padding).
/// The caller reads whatever comes next with the general parser.
const char* index_plain_records(const char* begin, const char* end, int64_t last_start,
                                char delimiter, size_t width, size_t max_rows, CsvPlainRun& run);

}  // namespace ember
