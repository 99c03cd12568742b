// Dense values first (one per non-null item), then nulls and list boundaries from the levels.
#include "io/parquet/parquet_column_builder.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "core/bitmap.h"
#include "core/buffer_access.h"

namespace ember::parquet {

namespace {

template <class T>
T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// A big-endian two's-complement integer of up to 16 bytes, as a double.
// An IEEE 754 half-precision float (2 bytes, little-endian) as a float: every half is exactly
// a float, subnormals, infinities and NaN (its payload kept) included.
float half_float(const char* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  const uint32_t sign = uint32_t(h >> 15) << 31;
  const uint32_t exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24
    const float v = std::ldexp(float(mantissa), -24);
    return sign ? -v : v;
  }
  const uint32_t bits = exponent == 31 ? sign | 0x7F800000u | (mantissa << 13)
                                       : sign | ((exponent + 112) << 23) | (mantissa << 13);
  return std::bit_cast<float>(bits);
}

double big_endian_decimal(const char* p, int32_t n) {
  if (n == 0) return 0;
  double v = static_cast<signed char>(p[0]);
  for (int32_t i = 1; i < n; ++i) v = v * 256 + static_cast<unsigned char>(p[i]);
  return v;
}

// Out-of-range values in a (corrupt or odd) file wrap instead of overflowing: garbage in,
// garbage out, but never undefined behaviour.
int64_t wrapping(uint64_t v) { return static_cast<int64_t>(v); }
int64_t mul(int64_t a, int64_t b) {
  return wrapping(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
int64_t add(int64_t a, int64_t b) {
  return wrapping(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

int64_t to_micros(int64_t v, int unit) {
  if (unit == 1) return mul(v, 1000);
  if (unit == 3) return v / 1000 - (v % 1000 < 0 ? 1 : 0);  // floor, for times before 1970
  return v;
}

// An unsigned 64-bit column reads as int64 (ember has no unsigned type), which holds only its
// values up to 2^63 - 1: a larger one must fail the read, never come back negative.
void check_fits_int64(const char* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t v = load<uint64_t>(p + i * 8);
    if (v > uint64_t{INT64_MAX})
      throw std::runtime_error(
          "unsigned value " + std::to_string(v) +
          " does not fit in int64, which ember reads unsigned 64-bit columns as (values up to " +
          std::to_string(INT64_MAX) +
          "); leave the column out with ParquetOptions::columns, or write it as a signed or "
          "decimal type");
  }
}

// The unit of an INT64 timestamp: 1 milliseconds, 2 microseconds (3 nanoseconds).
int timestamp_unit(const SchemaElement& e) {
  if (e.logical.kind == Logical::kTimestamp) return e.logical.time_unit;
  return e.converted && *e.converted == kTimestampMillis ? 1 : 2;
}

}  // namespace

Column leaf_values(const ChunkData& d, const LeafColumn& leaf) {
  const SchemaElement& e = leaf.element;
  const DataType& type = leaf.is_list ? leaf.field.type.element() : leaf.field.type;
  if (d.is_arrays) {
    const int64_t n = d.arrays.size();
    if (type.id() == TypeId::Float64) {  // decimal stored as bytes
      std::vector<double> out(static_cast<size_t>(n));
      const double scale =
          std::pow(10.0, e.logical.kind == Logical::kDecimal ? e.logical.scale : e.scale);
      for (int64_t i = 0; i < n; ++i) {
        const int32_t b = d.arrays.offsets[size_t(i)], len = d.arrays.offsets[size_t(i) + 1] - b;
        out[size_t(i)] = big_endian_decimal(d.arrays.bytes.data() + b, len) / scale;
      }
      return Column::from(std::move(out));
    }
    if (type.id() == TypeId::Float32) {  // FLOAT16, two bytes a value
      std::vector<float> out(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        const int32_t b = d.arrays.offsets[size_t(i)], len = d.arrays.offsets[size_t(i) + 1] - b;
        if (len != 2) throw std::runtime_error("a FLOAT16 value is not 2 bytes");
        out[size_t(i)] = half_float(d.arrays.bytes.data() + b);
      }
      return Column::from(std::move(out));
    }
    auto offsets = detail::BufferAccess::allocate_uninitialized((n + 1) * 4);
    std::memcpy(detail::BufferAccess::mutable_data(*offsets), d.arrays.offsets.data(),
                size_t(n + 1) * 4);
    return Column::from_buffers(type, n, 0, nullptr, std::move(offsets), d.arrays.bytes.share());
  }
  const int64_t n = static_cast<int64_t>(d.fixed.size()) / d.width;
  const char* p = d.fixed.data();
  const int32_t phys = *e.type;
  const bool decimal =
      e.logical.kind == Logical::kDecimal || (e.converted && *e.converted == kDecimal);
  if (decimal) {
    if (phys != kInt32 && phys != kInt64)  // leaf_type() refused the others already
      throw std::runtime_error("a DECIMAL column that is not INT32, INT64 or a byte array");
    const double scale =
        std::pow(10.0, e.logical.kind == Logical::kDecimal ? e.logical.scale : e.scale);
    std::vector<double> out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      out[size_t(i)] =
          (phys == kInt32 ? load<int32_t>(p + i * 4) : double(load<int64_t>(p + i * 8))) / scale;
    return Column::from(std::move(out));
  }
  switch (type.id()) {
    case TypeId::Boolean: {  // one byte per value packed into bits, eight at a time
      auto bits = Buffer::allocate(bitmap::bytes_for(n));
      uint8_t* b = detail::BufferAccess::mutable_data(*bits);
      // The decoders give one byte 0 or 1 per value: eight of them gathered into a byte by
      // one multiplication (bit 8j of the word lands on bit 56 + j).
      int64_t i = 0;
      for (; i + 8 <= n; i += 8) {
        uint64_t word;
        std::memcpy(&word, p + i, 8);
        b[i >> 3] =
            static_cast<uint8_t>(((word & 0x0101010101010101u) * 0x0102040810204080u) >> 56);
      }
      if (i < n) {
        uint8_t byte = 0;
        for (int64_t j = 0; i + j < n; ++j)
          byte = static_cast<uint8_t>(byte | (p[i + j] != 0 ? 1u << j : 0u));
        b[i >> 3] = byte;
      }
      return Column::from_buffers(type, n, 0, nullptr, std::move(bits));
    }
    case TypeId::Timestamp: {
      if (phys == kInt64 && timestamp_unit(e) == 2)  // microseconds already: the bytes as read
        return Column::from_buffers(timestamp_us(), n, 0, nullptr, d.fixed.share());
      std::vector<int64_t> out(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        if (phys == kInt96) {  // nanoseconds of the day, then the Julian day
          const int64_t nanos = load<int64_t>(p + i * 12);
          const int64_t day = load<int32_t>(p + i * 12 + 8);
          out[size_t(i)] = add(mul(day - 2440588, 86400 * int64_t{1000000}), nanos / 1000);
        } else {
          out[size_t(i)] = to_micros(load<int64_t>(p + i * 8), timestamp_unit(e));
        }
      }
      Column c = Column::from(std::move(out));
      return Column::from_buffers(timestamp_us(), n, 0, nullptr, c.values_buffer());
    }
    case TypeId::Int64: {
      const int unit = time_unit(e);
      if (phys == kInt32) {  // unsigned 32-bit, or TIME in milliseconds
        std::vector<int64_t> out(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i)
          out[size_t(i)] = unit != 0 ? to_micros(load<int32_t>(p + i * 4), unit)
                                     : int64_t{load<uint32_t>(p + i * 4)};
        return Column::from(std::move(out));
      }
      if (unit != 0 && unit != 2) {
        std::vector<int64_t> out(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) out[size_t(i)] = to_micros(load<int64_t>(p + i * 8), unit);
        return Column::from(std::move(out));
      }
      if (is_unsigned(e)) check_fits_int64(p, n);
      [[fallthrough]];
    }
    default: {
      const int w = type.byte_width();
      if (w != d.width) throw std::runtime_error("value width does not match the column type");
      // The decoded bytes themselves, not a copy.
      return Column::from_buffers(type, n, 0, nullptr, d.fixed.share());
    }
  }
}

Column spread_values(const Column& dense, const std::vector<uint8_t>& valid, int64_t present) {
  const int64_t n = static_cast<int64_t>(valid.size());
  if (present != dense.size()) throw std::runtime_error("levels and values disagree");
  if (present == n) return dense;
  auto validity = Buffer::allocate(bitmap::bytes_for(n));
  uint8_t* bits = detail::BufferAccess::mutable_data(*validity);
  const int w = dense.type().byte_width();
  if (w > 0) {
    auto values = Buffer::allocate(n * w);
    uint8_t* out = detail::BufferAccess::mutable_data(*values);
    const uint8_t* in = dense.values_buffer()->data();
    int64_t k = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (!valid[size_t(i)]) continue;
      set_bit(bits, i);
      std::memcpy(out + i * w, in + k++ * w, size_t(w));
    }
    return Column::from_buffers(dense.type(), n, n - present, std::move(validity),
                                std::move(values));
  }
  ColumnBuilder b(dense.type(), n);
  int64_t k = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (valid[size_t(i)])
      b.append_from(dense, k++);
    else
      b.append_null();
  }
  return b.finish();
}

Column build_column(ChunkData d, const LeafColumn& leaf, int64_t rows) {
  const Column dense = leaf_values(d, leaf);
  const int64_t n = d.num_values;
  if (!leaf.is_list) {
    if (n != rows)
      throw std::runtime_error("column chunk holds " + std::to_string(n) + " values for " +
                               std::to_string(rows) + " rows");
    if (leaf.max_def == 0 || d.all_defined) {
      if (dense.size() != n) throw std::runtime_error("levels and values disagree");
      return dense;
    }
    const int16_t* defs = d.defs.data();
    return place_values(
        dense, n, [](int64_t) { return true; }, [&](int64_t i) { return defs[i] == leaf.max_def; });
  }
  if (static_cast<int64_t>(d.defs.size()) != n || static_cast<int64_t>(d.reps.size()) != n)
    throw std::runtime_error("list levels are missing");
  if (n > 0 && d.reps[0] != 0) throw std::runtime_error("a list continues before it starts");
  // Each row starts a level entry: no more rows than entries, whatever the footer claims.
  const auto most_rows = static_cast<size_t>(std::min(rows, n));
  std::vector<int32_t> offsets;
  offsets.reserve(most_rows + 1);
  std::vector<uint8_t> list_valid;
  list_valid.reserve(most_rows);
  int64_t items = 0;
  const int16_t* defs = d.defs.data();
  const int16_t* reps = d.reps.data();
  for (int64_t i = 0; i < n; ++i) {
    if (reps[i] == 0) {
      if (static_cast<int64_t>(list_valid.size()) == rows)
        throw std::runtime_error("column chunk holds more lists than its " + std::to_string(rows) +
                                 " rows");
      offsets.push_back(static_cast<int32_t>(items));
      list_valid.push_back(defs[i] >= leaf.list_def);
    }
    if (defs[i] > leaf.list_def && ++items > std::numeric_limits<int32_t>::max())
      throw std::runtime_error("a list column holds more than 2^31-1 items");
  }
  offsets.push_back(static_cast<int32_t>(items));
  if (static_cast<int64_t>(list_valid.size()) != rows)
    throw std::runtime_error("column chunk holds " + std::to_string(list_valid.size()) +
                             " lists for " + std::to_string(rows) + " rows");
  Column values = place_values(
      dense, n, [&](int64_t i) { return defs[i] > leaf.list_def; },
      [&](int64_t i) { return defs[i] == leaf.max_def; });
  std::shared_ptr<Buffer> validity;
  for (int64_t i = 0; i < rows; ++i) {
    if (list_valid[size_t(i)]) continue;
    if (!validity) {
      validity = Buffer::allocate(bitmap::bytes_for(rows));
      bitmap::set_range(detail::BufferAccess::mutable_data(*validity), 0, rows);
    }
    clear_bit(detail::BufferAccess::mutable_data(*validity), i);
  }
  auto off = detail::BufferAccess::allocate_uninitialized(static_cast<int64_t>(offsets.size()) * 4);
  std::memcpy(detail::BufferAccess::mutable_data(*off), offsets.data(), offsets.size() * 4);
  return Column::nested(leaf.field.type, rows, -1, std::move(validity), std::move(off),
                        std::move(values));
}

}  // namespace ember::parquet
