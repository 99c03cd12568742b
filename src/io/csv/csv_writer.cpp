// CSV output formatting; see csv_writer.h.
#include "io/csv/csv_writer.h"

#include <cstring>
#include <memory>

#include "core/bitmap.h"
#include "core/timestamp_text.h"
#include "ember/error.h"
#include "io/number_text.h"

namespace ember {
namespace {

constexpr size_t kFlushBytes = size_t{4} << 20;
constexpr size_t kBufferBytes = kFlushBytes + (size_t{64} << 10);

bool needs_quotes(std::string_view s) {
  if (s.empty()) return true;  // `""`: an empty string, where an empty field would be null
  if (s.front() == ' ' || s.back() == ' ') return true;
  for (const char c : s)
    if (c == ',' || c == '"' || c == '\r' || c == '\n') return true;
  return false;
}

}  // namespace

void check_csv_schema(const Schema& schema) {
  for (const Field& f : schema.fields()) {
    if (f.type.is_nested() || f.type.id() == TypeId::Binary) {
      throw InvalidArgument("CSV cannot hold column '" + f.name + "' of type " +
                            f.type.to_string() +
                            "; write it with write_jsonl or write_parquet, or select it away");
    }
  }
}

CsvWriter::CsvWriter(const std::string& dir, const std::string& name, const Schema& schema)
    : file_(dir, name),
      schema_(schema),
      buffer_(std::make_unique_for_overwrite<char[]>(kBufferBytes)),
      capacity_(kBufferBytes) {
  for (int i = 0; i < schema_.num_fields(); ++i) {
    if (i > 0) put(',');
    append_text(schema_.field(i).name);
  }
  put('\n');
}

char* CsvWriter::room(size_t bytes) {
  if (used_ + bytes <= capacity_) return buffer_.get() + used_;
  flush();
  if (bytes > capacity_) {
    buffer_ = std::make_unique_for_overwrite<char[]>(bytes);
    capacity_ = bytes;
  }
  return buffer_.get();
}

void CsvWriter::append_text(std::string_view s) {
  if (!needs_quotes(s)) {
    char* p = room(s.size());
    if (!s.empty()) std::memcpy(p, s.data(), s.size());
    filled(p + s.size());
    return;
  }
  char* p = room(2 * s.size() + 2);  // room for every character being a doubled quote
  *p++ = '"';
  for (const char c : s) {
    *p++ = c;
    if (c == '"') *p++ = '"';  // a quote inside a quoted field is doubled
  }
  *p++ = '"';
  filled(p);
}

void CsvWriter::append_field(const Column& col, int64_t row) {
  if (col.is_null(row)) return;
  switch (col.type().id()) {
    case TypeId::Int64:
      filled(write_int64(room(kMaxNumberChars), col.values<int64_t>()[row]));
      break;
    case TypeId::Float64:
      filled(write_float64(room(kMaxNumberChars), col.values<double>()[row]));
      break;
    case TypeId::Boolean: {
      const std::string_view word = get_bit(col.bool_bits(), col.offset() + row) ? "true" : "false";
      char* p = room(word.size());
      std::memcpy(p, word.data(), word.size());
      filled(p + word.size());
      break;
    }
    case TypeId::Utf8:
      append_text(col.value<std::string_view>(row));
      break;
    case TypeId::Int32:
      filled(write_int64(room(kMaxNumberChars), col.values<int32_t>()[row]));
      break;
    case TypeId::Float32:
      filled(write_float64(room(kMaxNumberChars), col.values<float>()[row]));
      break;
    case TypeId::Timestamp:
    case TypeId::Date32: {
      const std::string text = col.type().id() == TypeId::Date32
                                   ? format_date(col.values<int32_t>()[row])
                                   : format_timestamp(col.values<int64_t>()[row]);
      char* p = room(text.size());
      std::memcpy(p, text.data(), text.size());
      filled(p + text.size());
      break;
    }
    default:
      throw InvalidArgument("cannot write a " + col.type().to_string() + " column to CSV");
  }
}

void CsvWriter::write(const Batch& batch) {
  if (!(batch.schema() == schema_)) {
    throw InvalidArgument("batch schema (" + batch.schema().to_string() +
                          ") differs from the output schema (" + schema_.to_string() + ")");
  }
  const int columns = batch.num_columns();
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    for (int c = 0; c < columns; ++c) {
      if (c > 0) put(',');
      append_field(batch.column(c), r);
    }
    put('\n');
    if (used_ >= kFlushBytes) flush();
  }
}

void CsvWriter::flush() {
  file_.write(std::string_view(buffer_.get(), used_));
  used_ = 0;
}

void CsvWriter::commit() {
  flush();
  file_.commit();
}

}  // namespace ember
