// JSON-lines output formatting; see jsonl_writer.h.
#include "io/jsonl/jsonl_writer.h"

#include <cmath>

#include "core/bitmap.h"
#include "core/timestamp_text.h"
#include "ember/error.h"
#include "io/base64.h"
#include "io/number_text.h"

namespace ember {
namespace {

constexpr size_t kFlushBytes = size_t{4} << 20;

bool needs_escape(unsigned char c) { return c < 0x20 || c == '"' || c == '\\'; }

/// Appends `s` as a JSON string literal (with quotes) to `out`.
void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  size_t run = 0;  // start of the pending run of bytes that need no escape
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (!needs_escape(c)) continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      const char esc[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
      out.append(esc, 6);
    }
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
}

void append_json_value(std::string& out, const Column& col, int64_t row);

// A value or null.
void append_json_slot(std::string& out, const Column& col, int64_t row) {
  if (col.is_null(row))
    out.append("null");
  else
    append_json_value(out, col, row);
}

// A struct as an object of its fields, in order.
void append_json_struct(std::string& out, const Column& col, int64_t row) {
  const std::vector<Field>& fields = col.type().fields();
  out.push_back('{');
  for (size_t f = 0; f < fields.size(); ++f) {
    if (f) out.push_back(',');
    append_json_string(out, fields[f].name);
    out.push_back(':');
    append_json_slot(out, col.children()[f], col.offset() + row);
  }
  out.push_back('}');
}

// A map as an object: text keys as they are, other keys as their JSON text (JSON object keys
// are strings), entries in stored order.
void append_json_map(std::string& out, const Column& col, int64_t row) {
  const auto [first, last] = col.list_range(row);
  const Column& entries = col.child();
  const Column& keys = entries.children()[0];
  const Column& values = entries.children()[1];
  out.push_back('{');
  for (int64_t j = first; j < last; ++j) {
    if (j > first) out.push_back(',');
    const int64_t k = entries.offset() + j;
    if (keys.type().id() == TypeId::Utf8) {
      append_json_slot(out, keys, k);
    } else {
      std::string text;
      append_json_slot(text, keys, k);
      append_json_string(out, text);
    }
    out.push_back(':');
    append_json_slot(out, values, k);
  }
  out.push_back('}');
}

/// Appends row `row` of `col` (not null) as JSON: numbers, booleans, strings, binary as a
/// base64 string, timestamps as "YYYY-MM-DD HH:MM:SS[.ffffff]" (UTC), dates as "YYYY-MM-DD",
/// lists as arrays, structs as objects of their fields, maps as objects of their entries.
void append_json_value(std::string& out, const Column& col, int64_t row) {
  switch (col.type().id()) {
    case TypeId::Int64:
      return append_int64(out, col.values<int64_t>()[row]);
    case TypeId::Int32:
      return append_int64(out, col.values<int32_t>()[row]);
    case TypeId::Float64:
    case TypeId::Float32: {
      const double v = col.type().id() == TypeId::Float64 ? col.values<double>()[row]
                                                          : double(col.values<float>()[row]);
      if (std::isfinite(v)) {
        append_float64(out, v);
      } else {
        out.append("null");  // JSON has no NaN or infinity
      }
      return;
    }
    case TypeId::Boolean:
      out.append(get_bit(col.bool_bits(), col.offset() + row) ? "true" : "false");
      return;
    case TypeId::Utf8:
      return append_json_string(out, col.value<std::string_view>(row));
    case TypeId::Binary:
      out.push_back('"');
      append_base64(out, col.value<std::string_view>(row));
      out.push_back('"');
      return;
    case TypeId::Timestamp:
      return append_json_string(out, format_timestamp(col.values<int64_t>()[row]));
    case TypeId::Date32:
      return append_json_string(out, format_date(col.values<int32_t>()[row]));
    case TypeId::List:
    case TypeId::FixedSizeList: {
      const auto [first, last] = col.list_range(row);
      const Column& items = col.child();
      out.push_back('[');
      for (int64_t j = first; j < last; ++j) {
        if (j > first) out.push_back(',');
        if (items.is_null(j)) {
          out.append("null");
        } else {
          append_json_value(out, items, j);
        }
      }
      out.push_back(']');
      return;
    }
    case TypeId::Struct:
      return append_json_struct(out, col, row);
    case TypeId::Map:
      return append_json_map(out, col, row);
    default:
      throw InvalidArgument("cannot write a " + col.type().to_string() + " column to JSON");
  }
}

}  // namespace

JsonlWriter::JsonlWriter(const std::string& dir, const std::string& name, const Schema& schema)
    : file_(dir, name), schema_(schema) {
  out_.reserve(kFlushBytes + (size_t{64} << 10));
  for (int i = 0; i < schema_.num_fields(); ++i) {
    std::string prefix(i == 0 ? "{" : ",");
    append_json_string(prefix, schema_.field(i).name);
    prefix.push_back(':');
    key_prefixes_.push_back(std::move(prefix));
  }
}

void JsonlWriter::append_row(const Batch& batch, int64_t row) {
  if (key_prefixes_.empty()) out_.push_back('{');
  for (int c = 0; c < batch.num_columns(); ++c) {
    out_.append(key_prefixes_[size_t(c)]);
    const Column& col = batch.column(c);
    if (col.is_null(row)) {
      out_.append("null");
      continue;
    }
    append_json_value(out_, col, row);
  }
  out_.append("}\n");
}

void JsonlWriter::write(const Batch& batch) {
  if (!(batch.schema() == schema_)) {
    throw InvalidArgument("batch schema (" + batch.schema().to_string() +
                          ") differs from the output schema (" + schema_.to_string() + ")");
  }
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    append_row(batch, r);
    if (out_.size() >= kFlushBytes) {
      file_.write(out_);
      out_.clear();
    }
  }
}

void JsonlWriter::commit() {
  file_.write(out_);
  out_.clear();
  file_.commit();
}

}  // namespace ember
