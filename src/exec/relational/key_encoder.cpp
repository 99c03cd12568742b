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

int64_t cell_size(const Column& c, int64_t i) {
  if (c.is_null(i)) return 1;
  switch (c.type().id()) {
    case TypeId::Boolean:
      return 2;
    case TypeId::Utf8: {
      const int32_t* o = c.offsets();
      return 1 + 4 + (o[i + 1] - o[i]);
    }
    default:
      return 9;
  }
}

void write_cell(const Column& c, int64_t i, char* out) {
  if (c.is_null(i)) {
    *out = kNull;
    return;
  }
  *out++ = kValid;
  switch (c.type().id()) {
    case TypeId::Boolean:
      *out = c.value<bool>(i) ? 1 : 0;
      return;
    case TypeId::Int64: {
      const int64_t v = c.values<int64_t>()[i];
      std::memcpy(out, &v, 8);
      return;
    }
    case TypeId::Float64: {
      const double v = canonical(c.values<double>()[i]);
      std::memcpy(out, &v, 8);
      return;
    }
    default: {
      std::string_view s = c.value<std::string_view>(i);
      const auto n = static_cast<uint32_t>(s.size());
      std::memcpy(out, &n, 4);
      std::memcpy(out + 4, s.data(), s.size());
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
    const TypeId id = c.type().id();
    if (c.null_count() == 0 && (id == TypeId::Int64 || id == TypeId::Float64)) {
      for (size_t i = 0; i < n; ++i) out.offsets[i + 1] += 9;
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
    for (size_t i = 0; i < n; ++i) {
      const auto row = static_cast<int64_t>(i);
      write_cell(c, row, base + cursor[i]);
      cursor[i] += cell_size(c, row);
    }
  }
}

std::vector<Column> decode_keys(const std::vector<std::string_view>& rows,
                                const std::vector<DataType>& types) {
  std::vector<ColumnBuilder> builders;
  for (const DataType& t : types) builders.emplace_back(t, static_cast<int64_t>(rows.size()));
  for (std::string_view row : rows) {
    const char* p = row.data();
    for (size_t k = 0; k < types.size(); ++k) {
      if (*p++ == kNull) {
        builders[k].append_null();
        continue;
      }
      switch (types[k].id()) {
        case TypeId::Boolean:
          builders[k].append(*p++ != 0);
          break;
        case TypeId::Int64: {
          int64_t v;
          std::memcpy(&v, p, 8);
          builders[k].append(v);
          p += 8;
          break;
        }
        case TypeId::Float64: {
          double v;
          std::memcpy(&v, p, 8);
          builders[k].append(v);
          p += 8;
          break;
        }
        default: {
          uint32_t len;
          std::memcpy(&len, p, 4);
          builders[k].append(std::string_view(p + 4, len));
          p += 4 + len;
          break;
        }
      }
    }
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

// std::hash may be weak in its high bits: mix them.
uint64_t hash_key(std::string_view key) { return mix(std::hash<std::string_view>()(key)); }

uint64_t hash_int(int64_t key) { return mix(static_cast<uint64_t>(key)); }

}  // namespace ember
