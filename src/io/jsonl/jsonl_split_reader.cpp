// open_jsonl_split: parses one byte-range split of a JSON-lines file into column builders.
#include "io/jsonl/jsonl_split_reader.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "ember/error.h"
#include "io/jsonl/jsonl_object.h"
#include "io/line_reader.h"
#include "io/stream_input.h"

namespace ember {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

constexpr int64_t kMaxReserveRows = 64 * 1024;

std::string kind_name(element_type t) {
  switch (t) {
    case element_type::INT64:
      return "an integer";
    case element_type::UINT64:
      return "an integer beyond int64";
    case element_type::DOUBLE:
      return "a fractional number";
    case element_type::BOOL:
      return "a boolean";
    case element_type::STRING:
      return "a string";
    case element_type::ARRAY:
      return "an array";
    case element_type::OBJECT:
      return "an object";
    default:
      return "null";
  }
}

class JsonlSplitReader final : public BatchReader {
 public:
  JsonlSplitReader(const FileSplit& split, Schema schema, int64_t batch_rows)
      : lines_(split),
        schema_(std::move(schema)),
        begin_(split.begin),
        end_(split.end),
        batch_rows_(batch_rows),
        set_in_row_(static_cast<size_t>(schema_.num_fields()), -1) {
    if (batch_rows_ <= 0) throw InvalidArgument("batch rows must be positive");
    for (int i = 0; i < schema_.num_fields(); ++i) {
      types_.push_back(schema_.field(i).type.id());
      index_.emplace(schema_.field(i).name, static_cast<size_t>(i));
    }
  }

  /// Called by one thread at a time.
  std::optional<Batch> next() override {
    if (done_) return std::nullopt;
    std::vector<ColumnBuilder> builders;
    const int64_t reserve = std::min(batch_rows_, kMaxReserveRows);
    for (const Field& f : schema_.fields()) builders.emplace_back(f.type, reserve);
    int64_t rows = 0;
    while (rows < batch_rows_) {
      if (!lines_.next() || (end_ >= 0 && lines_.line_offset() >= end_)) {
        done_ = true;  // past the split: the line belongs to the next one
        break;
      }
      if (lines_.blank()) continue;
      append_object(parse_jsonl_object(parser_, lines_), builders);
      ++rows;
    }
    if (rows == 0) return std::nullopt;
    // Objects without keys still are rows: a batch with no columns carries their count.
    if (builders.empty()) return Batch::empty_with_rows(rows);
    std::vector<Column> columns;
    for (ColumnBuilder& b : builders) columns.push_back(b.finish());
    return Batch(schema_, std::move(columns));
  }
  /// Up to the line it stopped at (its split's end once done).
  int64_t bytes_read() const override {
    const int64_t at = end_ >= 0 ? std::min(lines_.line_offset(), end_) : lines_.line_offset();
    return std::max<int64_t>(0, at - begin_);
  }

 private:
  /// Index of `key` in the schema, or -1. Objects usually repeat one key order, so the column
  /// after the previous key is tried before the hash map.
  int64_t column_of(std::string_view key, size_t guess) const {
    if (guess < types_.size() && schema_.field(static_cast<int>(guess)).name == key) {
      return static_cast<int64_t>(guess);
    }
    auto it = index_.find(std::string(key));
    return it == index_.end() ? -1 : static_cast<int64_t>(it->second);
  }

  void append_object(simdjson::dom::object object, std::vector<ColumnBuilder>& builders) {
    ++row_;
    size_t guess = 0;
    for (auto field : object) {
      const int64_t c = column_of(field.key, guess);
      // A key the sample did not show is ignored: the schema is fixed when the scan is planned.
      if (c < 0) continue;
      if (set_in_row_[size_t(c)] == row_) fail_repeated_key(lines_, field.key);
      set_in_row_[size_t(c)] = row_;
      guess = size_t(c) + 1;
      append_value(size_t(c), field.key, field.value, builders[size_t(c)]);
    }
    for (size_t c = 0; c < types_.size(); ++c) {
      if (set_in_row_[c] != row_) builders[c].append_null();  // missing key
    }
  }

  void append_value(size_t c, std::string_view key, element v, ColumnBuilder& b) {
    const element_type t = v.type();
    if (t == element_type::NULL_VALUE) {
      b.append_null();
      return;
    }
    switch (types_[c]) {
      case TypeId::Int64:
        if (t != element_type::INT64) fail_type(c, key, t);
        b.append(v.get_int64().value_unsafe());
        return;
      case TypeId::Float64:
        if (t == element_type::INT64) {
          b.append(static_cast<double>(v.get_int64().value_unsafe()));
        } else if (t == element_type::UINT64) {
          b.append(static_cast<double>(v.get_uint64().value_unsafe()));
        } else if (t == element_type::DOUBLE) {
          b.append(v.get_double().value_unsafe());
        } else {
          fail_type(c, key, t);
        }
        return;
      case TypeId::Boolean:
        if (t != element_type::BOOL) fail_type(c, key, t);
        b.append(v.get_bool().value_unsafe());
        return;
      case TypeId::List:
      case TypeId::Struct: {
        const element_type want =
            types_[c] == TypeId::List ? element_type::ARRAY : element_type::OBJECT;
        if (t != want) fail_type(c, key, t);
        std::optional<Value> value = list_value(v, schema_.field(int(c)).type);
        if (!value) fail_type(c, key, want);
        b.append_value(*value);
        return;
      }
      default:
        // utf8 holds strings as text and anything else (objects, arrays, numbers, booleans) as
        // its JSON text; simdjson has already checked the UTF-8.
        if (t == element_type::STRING) {
          b.append(v.get_string().value_unsafe());
        } else {
          b.append(std::string_view(simdjson::minify(v)));
        }
    }
  }

  /// A JSON value as a Value of `type` (a list's items and a struct's fields recursively), or
  /// nullopt when it does not fit (e.g. a string among a list<int64>'s items, or an object with
  /// a key its struct lacks; a key it lacks is null).
  static std::optional<Value> list_value(element v, const DataType& type) {
    const element_type t = v.type();
    if (t == element_type::NULL_VALUE) return Value{};
    switch (type.id()) {
      case TypeId::Int64:
        if (t != element_type::INT64) return std::nullopt;
        return Value(v.get_int64().value_unsafe());
      case TypeId::Float64:
        if (t == element_type::INT64) return Value(double(v.get_int64().value_unsafe()));
        if (t == element_type::UINT64) return Value(double(v.get_uint64().value_unsafe()));
        if (t != element_type::DOUBLE) return std::nullopt;
        return Value(v.get_double().value_unsafe());
      case TypeId::Boolean:
        if (t != element_type::BOOL) return std::nullopt;
        return Value(v.get_bool().value_unsafe());
      case TypeId::List: {
        if (t != element_type::ARRAY) return std::nullopt;
        List out;
        out.element = type.element();
        const simdjson::dom::array items = v.get_array().value_unsafe();
        for (element item : items) {
          std::optional<Value> x = list_value(item, type.element());
          if (!x) return std::nullopt;
          out.items.push_back(std::move(*x));
        }
        return Value(std::move(out));
      }
      case TypeId::Struct: {
        if (t != element_type::OBJECT) return std::nullopt;
        const simdjson::dom::object object = v.get_object().value_unsafe();
        Struct out;
        size_t found = 0;
        for (const Field& f : type.fields()) {
          auto field = object.at_key(f.name);
          if (field.error()) {
            out.fields.emplace_back(f.name, Value{});
            continue;
          }
          ++found;
          std::optional<Value> x = list_value(field.value_unsafe(), f.type);
          if (!x) return std::nullopt;
          out.fields.emplace_back(f.name, std::move(*x));
        }
        if (found != object.size()) return std::nullopt;
        return Value(std::move(out));
      }
      default:
        if (t == element_type::STRING) return Value(std::string(v.get_string().value_unsafe()));
        return Value(std::string(simdjson::minify(v)));
    }
  }

  [[noreturn]] void fail_type(size_t c, std::string_view key, element_type got) const {
    const std::string_view line = lines_.line();
    const int64_t column = jsonl_key_column(line, key);
    const Field& f = schema_.field(static_cast<int>(c));
    throw ParseError::at(
        lines_.path(), lines_.line_number(), column,
        "key '" + f.name + "' holds " + kind_name(got) +
            (got == element_type::ARRAY && f.type.is_list() ? " whose items do not fit" : "") +
            (got == element_type::OBJECT && f.type.id() == TypeId::Struct
                 ? " whose keys or values do not fit"
                 : "") +
            " but its column is " + f.type.to_string() +
            " (inferred from the first lines of the input)");
  }

  LineReader lines_;
  Schema schema_;
  std::vector<TypeId> types_;
  std::unordered_map<std::string, size_t> index_;
  simdjson::dom::parser parser_;
  int64_t begin_;
  int64_t end_;
  int64_t batch_rows_;
  int64_t row_ = 0;
  std::vector<int64_t> set_in_row_;  ///< the row in which each column was last set
  bool done_ = false;
};

}  // namespace

std::unique_ptr<BatchReader> open_jsonl_split(const FileSplit& split, const Schema& schema,
                                              int64_t batch_rows) {
  if (split.stream) split.stream->claim_for_reading();
  return std::make_unique<JsonlSplitReader>(split, schema, batch_rows);
}

}  // namespace ember
