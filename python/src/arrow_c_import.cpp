// Tables in through the Arrow C Stream Interface: every batch's columns copied into ember's
// own buffers (a producer's buffers cannot become ember Buffers through the public API).
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "arrow_c_data.h"

namespace ember::python {

namespace {

DataType type_of_schema(const ArrowSchema& s) {
  const std::string f = s.format;
  if (f == "n") return DataType();
  if (f == "b") return boolean();
  if (f == "l") return int64();
  if (f == "i") return int32();
  if (f == "g") return float64();
  if (f == "f") return float32();
  if (f == "u") return utf8();
  if (f == "z") return binary();
  if (f.rfind("tsu:", 0) == 0) return timestamp_us();
  if (f == "tdD") return date32();
  if (f == "+s") {
    std::vector<Field> fields;
    for (int64_t i = 0; i < s.n_children; ++i)
      fields.push_back(
          {s.children[i]->name ? s.children[i]->name : "", type_of_schema(*s.children[i])});
    return struct_(std::move(fields));
  }
  // A map: one entries struct of a key and a value, whatever the producer names them.
  if (f == "+m" && s.n_children == 1 && s.children[0]->n_children == 2) {
    const ArrowSchema& entries = *s.children[0];
    return map(type_of_schema(*entries.children[0]), type_of_schema(*entries.children[1]));
  }
  if ((f == "+l" || f.rfind("+w:", 0) == 0) && s.n_children == 1) {
    const DataType element = type_of_schema(*s.children[0]);
    if (f == "+l") return list(element);
    return fixed_size_list(element, std::stoi(f.substr(3)));
  }
  throw InvalidArgument("ember cannot read the Arrow type with format '" + f + "' (column '" +
                        (s.name ? s.name : "") + "')");
}

bool bit(const void* bits, int64_t i) {
  return (static_cast<const uint8_t*>(bits)[i >> 3] >> (i & 7)) & 1;
}

/// A copy of bits [start, start+length) of `bits` as a fresh bitmap, and its zero count.
std::pair<std::shared_ptr<Buffer>, int64_t> copy_bits(const void* bits, int64_t start,
                                                      int64_t length) {
  auto out = Buffer::allocate((length + 7) / 8);
  auto* dst = const_cast<uint8_t*>(out->data());  // ours alone until it is in a column
  int64_t zeros = 0;
  for (int64_t i = 0; i < length; ++i) {
    if (bit(bits, start + i)) {
      dst[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
    } else {
      ++zeros;
    }
  }
  return {out, zeros};
}

/// Rows [start, start+length) of the array (its own offset added) as a column of `type`.
Column import_column(const DataType& type, const ArrowArray& a, int64_t start, int64_t length);

Column import_list(const DataType& type, const ArrowArray& a, int64_t at, int64_t length,
                   std::shared_ptr<Buffer> validity, int64_t nulls) {
  const DataType& element = type.element();
  if (type.id() == TypeId::FixedSizeList) {
    const int64_t n = type.list_size();
    Column child = import_column(element, *a.children[0], at * n, length * n);
    return Column::nested(type, length, nulls, std::move(validity), nullptr, std::move(child));
  }
  const auto* offsets = static_cast<const int32_t*>(a.buffers[1]) + at;
  std::vector<int32_t> shifted(static_cast<size_t>(length + 1));
  for (int64_t i = 0; i <= length; ++i) shifted[static_cast<size_t>(i)] = offsets[i] - offsets[0];
  Column child = import_column(element, *a.children[0], offsets[0], offsets[length] - offsets[0]);
  return Column::nested(type, length, nulls, std::move(validity),
                        Buffer::copy_of(shifted.data(), (length + 1) * 4), std::move(child));
}

Column import_column(const DataType& type, const ArrowArray& a, int64_t start, int64_t length) {
  if (type.id() == TypeId::Null) return Column::nulls(type, length);
  const int64_t at = a.offset + start;
  std::shared_ptr<Buffer> validity;
  int64_t nulls = 0;
  if (a.buffers[0] != nullptr && a.null_count != 0) {
    auto [bits, zeros] = copy_bits(a.buffers[0], at, length);
    validity = std::move(bits);
    nulls = zeros;
  }
  if (type.is_list()) return import_list(type, a, at, length, std::move(validity), nulls);
  if (type.id() == TypeId::Struct) {  // the struct's offset applies to its children too
    std::vector<Column> children;
    for (size_t i = 0; i < type.fields().size(); ++i)
      children.push_back(import_column(type.fields()[i].type, *a.children[i], at, length));
    return Column::nested(type, length, nulls, std::move(validity), std::move(children));
  }
  if (type.id() == TypeId::Boolean) {
    auto values = copy_bits(a.buffers[1], at, length).first;
    return Column::from_buffers(type, length, nulls, std::move(validity), std::move(values));
  }
  if (type.id() == TypeId::Utf8 || type.id() == TypeId::Binary) {
    const auto* offsets = static_cast<const int32_t*>(a.buffers[1]) + at;
    std::vector<int32_t> shifted(static_cast<size_t>(length + 1));
    for (int64_t i = 0; i <= length; ++i) shifted[static_cast<size_t>(i)] = offsets[i] - offsets[0];
    auto chars = Buffer::copy_of(static_cast<const char*>(a.buffers[2]) + offsets[0],
                                 offsets[length] - offsets[0]);
    return Column::from_buffers(type, length, nulls, std::move(validity),
                                Buffer::copy_of(shifted.data(), (length + 1) * 4),
                                std::move(chars));
  }
  const int width = type.byte_width();
  auto values =
      Buffer::copy_of(static_cast<const uint8_t*>(a.buffers[1]) + at * width, length * width);
  return Column::from_buffers(type, length, nulls, std::move(validity), std::move(values));
}

/// Releases a C struct when it goes out of scope.
template <class T>
struct Released {
  T value{};
  ~Released() {
    if (value.release != nullptr) value.release(&value);
  }
};

[[noreturn]] void stream_failed(ArrowArrayStream* s, int code, const char* what) {
  const char* detail = s->get_last_error ? s->get_last_error(s) : nullptr;
  throw IoError(std::string("the Arrow stream failed to ") + what + " (error " +
                std::to_string(code) + (detail ? std::string(": ") + detail : "") + ")");
}

}  // namespace

Table import_table_stream(ArrowArrayStream* stream) {
  Released<ArrowArrayStream> owned{*stream};
  stream->release = nullptr;  // ours now
  ArrowArrayStream* s = &owned.value;
  Released<ArrowSchema> schema;
  if (int rc = s->get_schema(s, &schema.value)) stream_failed(s, rc, "give its schema");
  if (std::string(schema.value.format) != "+s")
    throw InvalidArgument("an Arrow stream of '" + std::string(schema.value.format) +
                          "' arrays; ember reads streams of struct arrays (record batches)");
  std::vector<Field> fields;
  for (int64_t i = 0; i < schema.value.n_children; ++i)
    fields.push_back({schema.value.children[i]->name ? schema.value.children[i]->name : "",
                      type_of_schema(*schema.value.children[i])});
  Schema out_schema(fields);
  std::vector<Batch> batches;
  while (true) {
    Released<ArrowArray> array;
    if (int rc = s->get_next(s, &array.value)) stream_failed(s, rc, "give its next batch");
    if (array.value.release == nullptr) break;  // the end
    const ArrowArray& a = array.value;
    std::vector<Column> columns;
    for (size_t i = 0; i < fields.size(); ++i)
      columns.push_back(import_column(fields[i].type, *a.children[i], a.offset, a.length));
    batches.emplace_back(out_schema, std::move(columns));
  }
  return Table(std::move(out_schema), std::move(batches));
}

}  // namespace ember::python
