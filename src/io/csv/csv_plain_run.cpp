// index_plain_records: walks the separator bits of 64-byte blocks; see csv_plain_run.h.
#include "io/csv/csv_plain_run.h"

#include <bit>
#include <limits>

#include "io/csv/csv_block_classifier.h"

namespace ember {

namespace {

// Offsets are stored as uint32_t; a run stops well before they could wrap.
constexpr size_t kMaxRunBytes = size_t{std::numeric_limits<uint32_t>::max()} - 128;

// A record of one empty field (or just the '\r' of a "\r\n"): the general parser skips it as a
// blank line.
bool is_blank(const char* record, const char* line_end) {
  return line_end == record || (line_end == record + 1 && *record == '\r');
}

// The line breaks of a block that end a record: every '\n', and every '\r' not followed by a
// '\n' (a lone '\r' of an old Mac file; the '\r' of a "\r\n" stays in its field, which drops it).
// The byte after the block is looked at only when the block's last byte is a '\r' before `end`,
// and then it is readable: at worst it is the '\n' sentinel at `end`.
uint64_t line_ends(const CsvBlockMasks& m, const char* block, const char* end) {
  uint64_t newline_after = m.newline >> 1;
  if ((m.carriage_return >> 63) != 0 && block + 64 <= end && block[64] == '\n') {
    newline_after |= uint64_t{1} << 63;
  }
  return m.newline | (m.carriage_return & ~newline_after);
}

}  // namespace

const char* index_plain_records(const char* begin, const char* end, int64_t last_start,
                                char delimiter, size_t width, size_t max_rows, CsvPlainRun& run) {
  run.base = begin;
  run.width = width;
  run.rows = 0;
  run.non_ascii = false;
  if (width == 0 || max_rows == 0 || begin >= end || last_start < 0) return begin;
  if (run.ends.size() < max_rows * width) run.ends.resize(max_rows * width);
  uint32_t* const ends = run.ends.data();
  const char* record = begin;  // start of the record being indexed
  size_t rows = 0;
  size_t fields = 0;  // separators seen so far in the current record
  bool non_ascii = false;
  for (const char* block = begin; block <= end; block += 64) {
    const size_t block_offset = static_cast<size_t>(block - begin);
    if (block_offset > kMaxRunBytes) break;
    const CsvBlockMasks m = classify_csv_block(block, delimiter);
    non_ascii |= m.non_ascii;
    const uint64_t line_end = m.carriage_return != 0 ? line_ends(m, block, end) : m.newline;
    uint64_t separators = m.delimiter | line_end;
    // A quote makes its record not plain: index what precedes it, then stop. The bytes after
    // the sentinel at `end` may hold anything, but they lie after a '\n' that stops the walk.
    if (m.quote != 0) separators &= (uint64_t{1} << std::countr_zero(m.quote)) - 1;
    while (separators != 0) {
      const int bit = std::countr_zero(separators);
      separators &= separators - 1;
      if (fields == width) goto done;  // one field too many
      const size_t at = block_offset + static_cast<size_t>(bit);
      ends[rows * width + fields++] = static_cast<uint32_t>(at);
      if (((line_end >> bit) & 1) == 0) continue;
      const char* record_end = begin + at;
      if (fields != width || record_end >= end) goto done;  // too few fields, or cut by the window
      if (width == 1 && is_blank(record, record_end)) goto done;
      ++rows;
      fields = 0;
      record = record_end + 1;
      if (rows == max_rows || record - begin > last_start) goto done;
    }
    if (m.quote != 0) break;
  }
done:
  run.rows = rows;
  run.non_ascii = non_ascii;
  return record;
}

}  // namespace ember
