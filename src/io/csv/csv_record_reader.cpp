// The CSV tokenizer's hot loop; see csv_record_reader.h.
#include "io/csv/csv_record_reader.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "ember/error.h"
#include "io/line_number.h"

namespace ember {

namespace {

// Bytes of `w` equal to `c` get their high bit set; the lowest flagged byte is always a true
// match (a false positive can only sit above a true one, where the borrow propagates).
inline uint64_t bytes_equal(uint64_t w, char c) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  const uint64_t x = w ^ (kOnes * static_cast<unsigned char>(c));
  return (x - kOnes) & ~x & (kOnes << 7);
}

// The end of an unquoted field: the first delimiter, '\n' or '\r' at or after p, eight bytes at
// a time. The window's '\n' sentinel at end() bounds the scan, and ChunkedFile keeps readable
// padding after it for the last word.
inline char* find_field_end(char* p, char delim) {
  for (;;) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    const uint64_t hit = bytes_equal(w, delim) | bytes_equal(w, '\n') | bytes_equal(w, '\r');
    if (hit) return p + (std::countr_zero(hit) >> 3);
    p += 8;
  }
}

}  // namespace

CsvRecordReader::CsvRecordReader(const FileSplit& split, char delimiter)
    : file_(split, LineBreaks::Any), delimiter_(delimiter), pos_(file_.begin()) {
  if (split.begin == 0) file_.skip_byte_order_mark(pos_);
}

bool CsvRecordReader::next() {
  for (;;) {
    const Step step = parse_record(pos_, file_.end(), file_.at_eof());
    if (step == Step::End) return false;
    if (step == Step::NeedMore) {
      // The record is cut by the end of the window: keep it, read more, and parse it again.
      // (Nothing was modified in place yet, so a second parse sees the same bytes.)
      file_.refill(pos_);
      continue;
    }
    if (!escaped_.empty()) unescape_quotes();
    // A blank line is one empty unquoted field; skip it.
    if (fields_.size() == 1 && fields_[0].size == 0 && !fields_[0].quoted) continue;
    return true;
  }
}

CsvRecordReader::Step CsvRecordReader::parse_record(char* p, char* end, bool at_eof) {
  fields_.clear();
  escaped_.clear();
  if (p == end) return at_eof ? Step::End : Step::NeedMore;
  char* const start = p;
  const char delim = delimiter_;
  for (;;) {
    if (p < end && *p == '"') {
      const Step s = parse_quoted(p, end, at_eof);
      if (s != Step::Record) return s;
      // parse_quoted left p just after the closing quote, on a delimiter or a line end.
      if (p < end && *p == delim) {
        ++p;
        continue;
      }
    } else {
      char* f = p;
      p = find_field_end(p, delim);
      if (p == end && !at_eof) return Step::NeedMore;
      fields_.push_back(CsvField{f, static_cast<uint32_t>(p - f), false});
      if (p < end && *p == delim) {
        ++p;
        continue;
      }
    }
    // At a line break (or the end of the file): the record is complete. A record ends at '\n',
    // "\r\n" or a lone '\r' (old Mac files); which of the last two needs the byte after the '\r'.
    if (p < end && *p == '\r') {
      if (p + 1 == end && !at_eof) return Step::NeedMore;
      ++p;
      if (p < end && *p == '\n') ++p;
    } else if (p < end) {
      ++p;  // the '\n'
    }
    record_begin_ = start;
    record_offset_ = file_.offset_of(start);
    pos_ = p;
    return Step::Record;
  }
}

CsvRecordReader::Step CsvRecordReader::parse_quoted(char*& p, char* end, bool at_eof) {
  char* const open = p;
  char* q = p + 1;
  bool escaped = false;
  for (;;) {
    q = static_cast<char*>(std::memchr(q, '"', end - q));
    if (q == nullptr) {
      if (!at_eof) return Step::NeedMore;
      fail_at_offset(file_.offset_of(open), fields_.size() + 1,
                     "unterminated quoted field: the file ends before its closing quote");
    }
    if (q + 1 == end && !at_eof) return Step::NeedMore;  // is it `""` or the closing quote?
    if (q + 1 < end && q[1] == '"') {
      escaped = true;
      q += 2;
      continue;
    }
    break;
  }
  const uint32_t size = static_cast<uint32_t>(q - open - 1);
  if (escaped) escaped_.push_back(static_cast<uint32_t>(fields_.size()));
  fields_.push_back(CsvField{open + 1, size, true});
  p = q + 1;
  // A field ends at a delimiter or a line break ('\n' or '\r'); parse_record takes it from here.
  if (p == end || *p == delimiter_ || *p == '\n' || *p == '\r') return Step::Record;
  fail_at_offset(file_.offset_of(p), fields_.size(),
                 std::string("unexpected character '") + *p +
                     "' after a closing quote; a quote inside a quoted field is written as \"\"");
}

void CsvRecordReader::unescape_quotes() {
  for (uint32_t i : escaped_) {
    CsvField& f = fields_[i];
    // The bytes are ours (the window), so `""` -> `"` is done in place.
    char* out = const_cast<char*>(f.data);
    const char* in = f.data;
    const char* const last = f.data + f.size;
    while (in < last) {
      const char c = *in++;
      *out++ = c;
      if (c == '"') ++in;  // skip the second quote of the pair
    }
    f.size = static_cast<uint32_t>(out - f.data);
  }
}

void CsvRecordReader::read_plain_run(size_t width, size_t max_rows, int64_t end, CsvPlainRun& run) {
  // index_plain_records takes the last offset (from pos_) at which a record may start.
  const int64_t limit =
      end < 0 ? std::numeric_limits<int64_t>::max() : end - 1 - file_.offset_of(pos_);
  const char* after =
      index_plain_records(pos_, file_.end(), limit, delimiter_, width, max_rows, run);
  pos_ += after - pos_;  // the same byte, through the window's own (mutable) pointer
}

void CsvRecordReader::fail_in_run(const CsvPlainRun& run, size_t row, size_t field_index,
                                  const std::string& message) const {
  // A plain record holds no quoted line break, so it lies on one line.
  const int64_t line = file_.line_number_at(file_.offset_of(run.record_begin(row)));
  throw ParseError::at(file_.path(), line, static_cast<int64_t>(field_index + 1), message);
}

ParseError CsvRecordReader::error_at_field(size_t field_index, const std::string& message) const {
  const CsvField& f = fields_.at(field_index);
  // The field may sit on a later line of the record when an earlier quoted field held line
  // breaks.
  const int64_t inner = count_line_breaks(record_begin_, f.data, 0, LineBreaks::Any);
  const int64_t line = file_.line_number_at(record_offset_) + inner;
  return ParseError::at(file_.path(), line, static_cast<int64_t>(field_index + 1), message);
}

void CsvRecordReader::fail_field_count(size_t expected) const {
  const size_t got = fields_.size();
  // Point at the first extra field, or at the last field of a short row.
  const size_t at = got > expected ? expected : got - 1;
  fail_at_field(at, "expected " + std::to_string(expected) + " fields (as in the header), got " +
                        std::to_string(got));
}

void CsvRecordReader::fail_at_offset(int64_t offset, size_t field_number,
                                     const std::string& message) const {
  throw ParseError::at(file_.path(), file_.line_number_at(offset),
                       static_cast<int64_t>(field_number), message);
}

}  // namespace ember
