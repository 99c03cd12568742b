// RFC-4180 tokenizer: turns a ChunkedFile into records of fields, without copying field bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ember/error.h"
#include "io/chunked_file.h"
#include "io/csv/csv_plain_run.h"

namespace ember {

/// One field of a record: a view into the reader's buffer (quotes removed, doubled quotes
/// collapsed), valid until the next call to CsvRecordReader::next().
struct CsvField {
  const char* data;
  uint32_t size;
  bool quoted;  ///< written in quotes: `""` is then an empty string rather than a null
  std::string_view view() const { return {data, size}; }
};

/// Reads CSV records one at a time. Handles quoted fields with delimiters, doubled quotes and
/// embedded line breaks. A record ends at '\n', "\r\n" or a lone '\r' (old Mac files), in any mix;
/// a quote opens a quoted field only at the start of a field (in `ab"c` it is data). Blank lines
/// are skipped (a blank line in a one-column file is therefore not a null row: it cannot be told
/// apart from a stray line break). Not thread-safe.
class CsvRecordReader {
 public:
  /// Reads the split's file from its first byte, which must be 0 or the start of a record (see
  /// FileSplit). At 0, a UTF-8 byte-order mark is skipped.
  CsvRecordReader(const FileSplit& split, char delimiter);

  /// Reads the next record; false at the end of the file. Throws ParseError on an unterminated
  /// quote or a stray character after a closing quote, IoError on a read failure.
  bool next();

  /// Indexes up to `max_rows` plain records (see CsvPlainRun) that follow the current position,
  /// within the bytes already read, and moves past them: next() then reads the record after
  /// them. Records starting at or after file offset `end` (a split's end; -1: no limit) are
  /// left alone. Zero rows when the next record is not plain or not wholly read yet.
  void read_plain_run(size_t width, size_t max_rows, int64_t end, CsvPlainRun& run);
  /// Throws ParseError "path:line:field: message" for field `field_index` (0-based) of record
  /// `row` of `run`, the latest plain run read.
  [[noreturn]] void fail_in_run(const CsvPlainRun& run, size_t row, size_t field_index,
                                const std::string& message) const;

  const std::vector<CsvField>& fields() const { return fields_; }
  /// Absolute file offset of the current record's first byte.
  int64_t record_offset() const { return record_offset_; }
  const std::string& path() const { return file_.path(); }

  /// Throws ParseError unless the current record has `expected` fields (a ragged row).
  void check_field_count(size_t expected) const {
    if (fields_.size() != expected) fail_field_count(expected);
  }
  /// Throws ParseError "path:line:field: message" for field `field_index` (0-based) of the
  /// current record; the line is computed now (see ChunkedFile::line_number_at).
  [[noreturn]] void fail_at_field(size_t field_index, const std::string& message) const {
    throw error_at_field(field_index, message);
  }
  /// The ParseError that fail_at_field() throws, to be thrown later.
  ParseError error_at_field(size_t field_index, const std::string& message) const;

 private:
  enum class Step { Record, NeedMore, End };
  Step parse_record(char* p, char* end, bool at_eof);
  Step parse_quoted(char*& p, char* end, bool at_eof);
  void unescape_quotes();
  [[noreturn]] void fail_field_count(size_t expected) const;
  [[noreturn]] void fail_at_offset(int64_t offset, size_t field_number,
                                   const std::string& message) const;

  ChunkedFile file_;
  char delimiter_;
  char* pos_;                     ///< start of the next unread record in the window
  char* record_begin_ = nullptr;  ///< first byte of the current record in the window
  int64_t record_offset_ = 0;
  std::vector<CsvField> fields_;
  std::vector<uint32_t> escaped_;  ///< indexes of fields holding doubled quotes
};

}  // namespace ember
