// CSV output formatting; see csv_writer.h.
#include "io/csv/csv_writer.h"

#include "core/bitmap.h"
#include "core/timestamp_text.h"
#include "ember/error.h"
#include "io/number_text.h"

namespace ember {
namespace {

constexpr size_t kFlushBytes = size_t{4} << 20;

bool needs_quotes(std::string_view s) {
  if (s.empty()) return true;  // `""`: an empty string, where an empty field would be null
  if (s.front() == ' ' || s.back() == ' ') return true;
  return s.find_first_of(",\"\r\n") != std::string_view::npos;
}

}  // namespace

void check_csv_schema(const Schema& schema) {
  for (const Field& f : schema.fields()) {
    if (f.type.is_list() || f.type.id() == TypeId::Binary) {
      throw InvalidArgument("CSV cannot hold column '" + f.name + "' of type " +
                            f.type.to_string() +
                            "; write it with write_jsonl or write_parquet, or select it away");
    }
  }
}

CsvWriter::CsvWriter(const std::string& dir, const std::string& name, const Schema& schema)
    : file_(dir, name), schema_(schema) {
  out_.reserve(kFlushBytes + (size_t{64} << 10));
  for (int i = 0; i < schema_.num_fields(); ++i) {
    if (i > 0) out_.push_back(',');
    append_text(schema_.field(i).name);
  }
  out_.push_back('\n');
}

void CsvWriter::append_text(std::string_view s) {
  if (!needs_quotes(s)) {
    out_.append(s);
    return;
  }
  out_.push_back('"');
  for (size_t start = 0;;) {
    const size_t q = s.find('"', start);
    if (q == std::string_view::npos) {
      out_.append(s.substr(start));
      break;
    }
    out_.append(s.substr(start, q + 1 - start));
    out_.push_back('"');  // a quote inside a quoted field is doubled
    start = q + 1;
  }
  out_.push_back('"');
}

void CsvWriter::append_row(const Batch& batch, int64_t row) {
  for (int c = 0; c < batch.num_columns(); ++c) {
    if (c > 0) out_.push_back(',');
    const Column& col = batch.column(c);
    if (col.is_null(row)) continue;
    switch (col.type().id()) {
      case TypeId::Int64:
        append_int64(out_, col.values<int64_t>()[row]);
        break;
      case TypeId::Float64:
        append_float64(out_, col.values<double>()[row]);
        break;
      case TypeId::Boolean:
        out_.append(get_bit(col.bool_bits(), col.offset() + row) ? "true" : "false");
        break;
      case TypeId::Utf8:
        append_text(col.value<std::string_view>(row));
        break;
      case TypeId::Int32:
        append_int64(out_, col.values<int32_t>()[row]);
        break;
      case TypeId::Float32:
        append_float64(out_, col.values<float>()[row]);
        break;
      case TypeId::Timestamp:
        out_.append(format_timestamp(col.values<int64_t>()[row]));
        break;
      default:
        throw InvalidArgument("cannot write a " + col.type().to_string() + " column to CSV");
    }
  }
  out_.push_back('\n');
}

void CsvWriter::write(const Batch& batch) {
  if (!(batch.schema() == schema_)) {
    throw InvalidArgument("batch schema (" + batch.schema().to_string() +
                          ") differs from the output schema (" + schema_.to_string() + ")");
  }
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    append_row(batch, r);
    flush_if_full();
  }
}

void CsvWriter::flush_if_full() {
  if (out_.size() < kFlushBytes) return;
  file_.write(out_);
  out_.clear();
}

void CsvWriter::commit() {
  file_.write(out_);
  out_.clear();
  file_.commit();
}

}  // namespace ember
