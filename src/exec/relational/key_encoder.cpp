// Column-at-a-time key encoding: sizes first, then each column writes its cells in place.
#include "exec/relational/key_encoder.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

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
// length and the bytes (utf8, binary), or a 4-byte item count and each item as a cell (lists).
int64_t cell_size(const Column& c, int64_t i) {
  if (c.is_null(i)) return 1;
  if (const int w = fixed_width(c.type())) return 1 + w;
  if (c.type().is_list()) {
    const auto [first, last] = c.list_range(i);
    int64_t n = 1 + 4;
    for (int64_t k = first; k < last; ++k) n += cell_size(c.child(), k);
    return n;
  }
  const int32_t* o = c.offsets();  // utf8, binary
  return 1 + 4 + (o[i + 1] - o[i]);
}

/// Writes cell i of `c` at `out`; returns the byte after it.
char* write_cell(const Column& c, int64_t i, char* out) {
  if (c.is_null(i)) {
    *out = kNull;
    return out + 1;
  }
  *out++ = kValid;
  switch (c.type().id()) {
    case TypeId::Boolean:
      *out = c.value<bool>(i) ? 1 : 0;
      return out + 1;
    case TypeId::Int32:
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
    case TypeId::List:
    case TypeId::FixedSizeList: {
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
  if (*p++ == kNull) return Value();
  switch (type.id()) {
    case TypeId::Boolean:
      return Value(*p++ != 0);
    case TypeId::Int32:
      return Value(int64_t{read_as<int32_t>(p)});
    case TypeId::Int64:
      return Value(read_as<int64_t>(p));
    case TypeId::Timestamp:
      return Value(Timestamp{read_as<int64_t>(p)});
    case TypeId::Float32:
      return Value(read_as<float>(p));
    case TypeId::Float64:
      return Value(read_as<double>(p));
    case TypeId::List:
    case TypeId::FixedSizeList: {
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
  if (type.is_list() || *p == kNull) {
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

}  // namespace

void encode_keys(const std::vector<Column>& keys, int64_t rows, EncodedKeys& out) {
  const auto n = static_cast<size_t>(rows);
  out.offsets.assign(n + 1, 0);
  out.any_null.assign(n, 0);
  // Pass 1: each row's size, as offsets[i + 1] before the prefix sum.
  for (const Column& c : keys) {
    if (c.null_count() == 0 && fixed_width(c.type()) > 0) {
      const int64_t w = 1 + fixed_width(c.type());
      for (size_t i = 0; i < n; ++i) out.offsets[i + 1] += w;
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

namespace {

/// splitmix64's finalizer: every input bit reaches every output bit.
uint64_t mix(uint64_t h) {
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  return h ^ (h >> 31);
}

}  // namespace

// Short keys (one or two numbers, a short string) are most keys: two words mixed cost less
// than std::hash's byte loop. std::hash may be weak in its high bits: mix them.
uint64_t hash_key(std::string_view key) {
  const size_t n = key.size();
  if (n <= 16) {
    // Fixed-size loads (overlapping when n < 16) instead of a variable-length copy; the length
    // is mixed in, so keys of different lengths that load alike still differ.
    const char* p = key.data();
    uint64_t lo = 0, hi = 0;
    if (n >= 8) {
      std::memcpy(&lo, p, 8);
      std::memcpy(&hi, p + n - 8, 8);
    } else if (n >= 4) {
      uint32_t a, b;
      std::memcpy(&a, p, 4);
      std::memcpy(&b, p + n - 4, 4);
      lo = (uint64_t{a} << 32) | b;
    } else if (n > 0) {
      lo = (uint64_t{static_cast<uint8_t>(p[0])} << 16) |
           (uint64_t{static_cast<uint8_t>(p[n / 2])} << 8) | static_cast<uint8_t>(p[n - 1]);
    }
    return mix(lo ^ mix(hi ^ (n * 0x9e3779b97f4a7c15ULL)));
  }
  return mix(std::hash<std::string_view>()(key));
}

uint64_t hash_int(int64_t key) { return mix(static_cast<uint64_t>(key)); }

}  // namespace ember
