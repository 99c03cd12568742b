// Column-at-a-time key encoding: sizes first, then each column writes its cells in place.
#include "exec/relational/key_encoder.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "core/short_copy.h"

namespace ember {

namespace {

constexpr char kNull = 0;
constexpr char kValid = 1;

/// One representation per value class, so that equal values encode equal.
double canonical(double v) {
  if (std::isnan(v)) return std::numeric_limits<double>::quiet_NaN();
  return v == 0.0 ? 0.0 : v;
}
float canonical(float v) {
  if (std::isnan(v)) return std::numeric_limits<float>::quiet_NaN();
  return v == 0.0f ? 0.0f : v;
}

/// Bytes of a non-null fixed-width cell's value: DataType::byte_width, and one for a bool (bit-
/// packed in a column, a byte in a key); 0 for types that are not fixed-width.
int fixed_width(const DataType& type) {
  return type.id() == TypeId::Boolean ? 1 : type.byte_width();
}

// A cell is a null/valid byte, then for a valid one: the value's bytes (fixed width), a 4-byte
// length and the bytes (utf8, binary), a 4-byte item count and each item as a cell (lists and
// maps, a map's entries in the order stored), or each field as a cell (structs).
// A null cell of a fixed-width type is padded with zeros to the width of a valid one, so that
// rows of fixed-width keys all have one size (KeyLayout::Fixed).
int64_t cell_size(const Column& c, int64_t i) {
  if (c.is_null(i)) return 1 + fixed_width(c.type());
  if (const int w = fixed_width(c.type())) return 1 + w;
  if (c.type().is_list()) {
    const auto [first, last] = c.list_range(i);
    int64_t n = 1 + 4;
    for (int64_t k = first; k < last; ++k) n += cell_size(c.child(), k);
    return n;
  }
  if (c.type().id() == TypeId::Struct) {
    int64_t n = 1;
    for (const Column& f : c.children()) n += cell_size(f, c.offset() + i);
    return n;
  }
  const int32_t* o = c.offsets();  // utf8, binary
  return 1 + 4 + (o[i + 1] - o[i]);
}

/// Writes cell i of `c` at `out`; returns the byte after it.
char* write_cell(const Column& c, int64_t i, char* out) {
  if (c.is_null(i)) {
    *out = kNull;
    const int w = fixed_width(c.type());
    std::memset(out + 1, 0, static_cast<size_t>(w));
    return out + 1 + w;
  }
  *out++ = kValid;
  switch (c.type().id()) {
    case TypeId::Boolean:
      *out = c.value<bool>(i) ? 1 : 0;
      return out + 1;
    case TypeId::Int32:
    case TypeId::Date32:
      std::memcpy(out, c.values<int32_t>() + i, 4);
      return out + 4;
    case TypeId::Int64:
    case TypeId::Timestamp:
      std::memcpy(out, c.values<int64_t>() + i, 8);
      return out + 8;
    case TypeId::Float32: {
      const float v = canonical(c.values<float>()[i]);
      std::memcpy(out, &v, 4);
      return out + 4;
    }
    case TypeId::Float64: {
      const double v = canonical(c.values<double>()[i]);
      std::memcpy(out, &v, 8);
      return out + 8;
    }
    case TypeId::Struct:
      for (const Column& f : c.children()) out = write_cell(f, c.offset() + i, out);
      return out;
    case TypeId::List:
    case TypeId::FixedSizeList:
    case TypeId::Map: {
      const auto [first, last] = c.list_range(i);
      const auto n = static_cast<uint32_t>(last - first);
      std::memcpy(out, &n, 4);
      out += 4;
      for (int64_t k = first; k < last; ++k) out = write_cell(c.child(), k, out);
      return out;
    }
    default: {  // utf8, binary
      std::string_view s = c.value<std::string_view>(i);
      const auto n = static_cast<uint32_t>(s.size());
      std::memcpy(out, &n, 4);
      std::memcpy(out + 4, s.data(), s.size());
      return out + 4 + s.size();
    }
  }
}

template <class T>
T read_as(const char*& p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  p += sizeof v;
  return v;
}

/// Reads one cell of `type` at `p` (advancing it) as a Value: the path of list items.
Value read_value(const char*& p, const DataType& type) {
  if (*p++ == kNull) {
    p += fixed_width(type);  // the zero padding
    return Value();
  }
  switch (type.id()) {
    case TypeId::Boolean:
      return Value(*p++ != 0);
    case TypeId::Int32:
      return Value(int64_t{read_as<int32_t>(p)});
    case TypeId::Int64:
      return Value(read_as<int64_t>(p));
    case TypeId::Timestamp:
      return Value(Timestamp{read_as<int64_t>(p)});
    case TypeId::Date32:
      return Value(Date{read_as<int32_t>(p)});
    case TypeId::Float32:
      return Value(read_as<float>(p));
    case TypeId::Float64:
      return Value(read_as<double>(p));
    case TypeId::Struct: {
      Struct value;
      for (const Field& f : type.fields()) value.fields.emplace_back(f.name, read_value(p, f.type));
      return Value(std::move(value));
    }
    case TypeId::List:
    case TypeId::FixedSizeList:
    case TypeId::Map: {
      List list{{}, type.element()};
      const auto n = read_as<uint32_t>(p);
      for (uint32_t k = 0; k < n; ++k) list.items.push_back(read_value(p, type.element()));
      return Value(std::move(list));
    }
    case TypeId::Binary: {
      const auto n = read_as<uint32_t>(p);
      std::vector<uint8_t> bytes(p, p + n);
      p += n;
      return Value(std::move(bytes));
    }
    default: {
      const auto n = read_as<uint32_t>(p);
      std::string text(p, n);
      p += n;
      return Value(std::move(text));
    }
  }
}

/// Appends the cell at `p` (advancing it) to `b`, of the builder's type.
void read_cell(const char*& p, const DataType& type, ColumnBuilder& b) {
  if (type.is_nested() || *p == kNull) {
    b.append_value(read_value(p, type));
    return;
  }
  ++p;
  switch (type.id()) {
    case TypeId::Boolean:
      b.append(*p++ != 0);
      return;
    case TypeId::Int32:
      b.append(read_as<int32_t>(p));
      return;
    case TypeId::Int64:
      b.append(read_as<int64_t>(p));
      return;
    case TypeId::Timestamp:
      b.append(Timestamp{read_as<int64_t>(p)});
      return;
    case TypeId::Date32:
      b.append(Date{read_as<int32_t>(p)});
      return;
    case TypeId::Float32:
      b.append(read_as<float>(p));
      return;
    case TypeId::Float64:
      b.append(read_as<double>(p));
      return;
    default: {  // utf8, binary
      const auto n = read_as<uint32_t>(p);
      b.append(std::string_view(p, n));
      p += n;
      return;
    }
  }
}

/// Writes column `c`'s cells (values of type T as stored) at `out`, one every `stride` bytes;
/// `canon` makes equal values equal bytes.
template <class T, class Canon>
void put_fixed(const Column& c, size_t n, char* out, size_t stride, uint8_t* any_null,
               Canon canon) {
  const T* v = n > 0 ? c.values<T>() : nullptr;
  if (c.null_count() == 0) {
    for (size_t i = 0; i < n; ++i, out += stride) {
      const T x = canon(v[i]);
      *out = kValid;
      std::memcpy(out + 1, &x, sizeof(T));
    }
    return;
  }
  for (size_t i = 0; i < n; ++i, out += stride) {
    const bool null = c.is_null(static_cast<int64_t>(i));
    const T x = null ? T{} : canon(v[i]);
    *out = null ? kNull : kValid;
    std::memcpy(out + 1, &x, sizeof(T));
    any_null[i] |= static_cast<uint8_t>(null);
  }
}

bool is_text(const DataType& type) {
  return type.id() == TypeId::Utf8 || type.id() == TypeId::Binary;
}

/// A text or bytes column without nulls, each cell written at base + cursor[i] (which it
/// advances): the valid byte, the length, the bytes, copied without a call for short values.
void put_text(const Column& c, size_t n, char* base, int64_t* cursor) {
  const int32_t* o = c.offsets();
  const char* chars = c.chars();
  for (size_t i = 0; i < n; ++i) {
    char* out = base + cursor[i];
    const auto len = static_cast<uint32_t>(o[i + 1] - o[i]);
    const char* s = chars + o[i];
    *out = kValid;
    std::memcpy(out + 1, &len, 4);
    copy_short(out + 5, s, len);
    cursor[i] += 5 + len;
  }
}

/// KeyLayout::Fixed: column by column, each at its constant offset in a row of `width` bytes.
void encode_fixed(const std::vector<Column>& keys, size_t n, int64_t width, EncodedKeys& out) {
  out.width = width;
  out.offsets.clear();
  out.bytes.resize(n * static_cast<size_t>(width));
  const auto stride = static_cast<size_t>(width);
  char* at = out.bytes.data();
  uint8_t* any_null = out.any_null.data();
  auto same = [](auto x) { return x; };
  auto canon = [](auto x) { return canonical(x); };
  for (const Column& c : keys) {
    switch (c.type().id()) {
      case TypeId::Int32:
      case TypeId::Date32:
        put_fixed<int32_t>(c, n, at, stride, any_null, same);
        break;
      case TypeId::Int64:
      case TypeId::Timestamp:
        put_fixed<int64_t>(c, n, at, stride, any_null, same);
        break;
      case TypeId::Float32:
        put_fixed<float>(c, n, at, stride, any_null, canon);
        break;
      case TypeId::Float64:
        put_fixed<double>(c, n, at, stride, any_null, canon);
        break;
      default: {  // boolean: bit-packed in the column, a byte in the key
        char* p = at;
        for (size_t i = 0; i < n; ++i, p += stride) {
          const auto row = static_cast<int64_t>(i);
          const bool null = c.is_null(row);
          p[0] = null ? kNull : kValid;
          p[1] = !null && c.value<bool>(row) ? 1 : 0;
          any_null[i] |= static_cast<uint8_t>(null);
        }
        break;
      }
    }
    at += 1 + fixed_width(c.type());
  }
}

}  // namespace

int64_t fixed_key_width(const std::vector<DataType>& types) {
  int64_t width = 0;
  for (const DataType& t : types) {
    const int w = fixed_width(t);
    if (w == 0) return 0;
    width += 1 + w;
  }
  return width;
}

void encode_keys(const std::vector<Column>& keys, int64_t rows, EncodedKeys& out,
                 KeyLayout layout) {
  const auto n = static_cast<size_t>(rows);
  out.num_rows = rows;
  out.any_null.assign(n, 0);
  if (layout == KeyLayout::Auto) {
    std::vector<DataType> types;
    for (const Column& c : keys) types.push_back(c.type());
    if (const int64_t width = fixed_key_width(types)) return encode_fixed(keys, n, width, out);
  }
  out.width = 0;
  out.offsets.assign(n + 1, 0);
  // Pass 1: each row's size, as offsets[i + 1] before the prefix sum.
  for (const Column& c : keys) {
    if (c.null_count() == 0 && fixed_width(c.type()) > 0) {
      const int64_t w = 1 + fixed_width(c.type());
      for (size_t i = 0; i < n; ++i) out.offsets[i + 1] += w;
      continue;
    }
    if (is_text(c.type()) && c.null_count() == 0) {
      const int32_t* o = c.offsets();
      for (size_t i = 0; i < n; ++i) out.offsets[i + 1] += 1 + 4 + (o[i + 1] - o[i]);
      continue;
    }
    for (size_t i = 0; i < n; ++i) {
      const auto row = static_cast<int64_t>(i);
      out.offsets[i + 1] += cell_size(c, row);
      if (c.is_null(row)) out.any_null[i] = 1;
    }
  }
  for (size_t i = 0; i < n; ++i) out.offsets[i + 1] += out.offsets[i];
  out.bytes.resize(static_cast<size_t>(out.offsets[n]));
  // Pass 2: each column writes its cells behind the previous columns' cells.
  std::vector<int64_t> cursor(out.offsets.begin(), out.offsets.end() - 1);
  char* base = out.bytes.data();
  for (const Column& c : keys) {
    if (is_text(c.type()) && c.null_count() == 0) {
      put_text(c, n, base, cursor.data());
      continue;
    }
    for (size_t i = 0; i < n; ++i)
      cursor[i] = write_cell(c, static_cast<int64_t>(i), base + cursor[i]) - base;
  }
}

std::vector<Column> decode_keys(const std::vector<std::string_view>& rows,
                                const std::vector<DataType>& types) {
  std::vector<ColumnBuilder> builders;
  for (const DataType& t : types) builders.emplace_back(t, static_cast<int64_t>(rows.size()));
  for (std::string_view row : rows) {
    const char* p = row.data();
    for (size_t k = 0; k < types.size(); ++k) read_cell(p, types[k], builders[k]);
  }
  std::vector<Column> out;
  for (auto& b : builders) out.push_back(b.finish());
  return out;
}

}  // namespace ember
