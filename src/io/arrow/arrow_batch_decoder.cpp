// Decoding an Arrow IPC batch into ember columns; see arrow_batch_decoder.h.
#include "io/arrow/arrow_batch_decoder.h"

#include <climits>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "core/bitmap.h"
#include "core/buffer_access.h"
#include "io/arrow/flatbuffer_copy.h"

namespace ember::arrow_ipc {

namespace fb = org::apache::arrow::flatbuf;

namespace {

template <class T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

/// An unsigned or signed little-endian integer of 1, 2, 4 or 8 bytes.
uint64_t load_unsigned(const uint8_t* p, int bytes) {
  return bytes == 1   ? load<uint8_t>(p)
         : bytes == 2 ? load<uint16_t>(p)
         : bytes == 4 ? load<uint32_t>(p)
                      : load<uint64_t>(p);
}

int64_t load_signed(const uint8_t* p, int bytes) {
  return bytes == 1   ? load<int8_t>(p)
         : bytes == 2 ? load<int16_t>(p)
         : bytes == 4 ? load<int32_t>(p)
                      : load<int64_t>(p);
}

std::shared_ptr<Buffer> copy(const uint8_t* p, int64_t size) { return Buffer::copy_of(p, size); }

bool valid(const std::shared_ptr<Buffer>& validity, int64_t i) {
  return !validity || get_bit(validity->data(), i);
}

/// An IEEE 754 half-precision value as a float (subnormals, infinities and NaN included).
float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const int exponent = (h >> 10) & 0x1f;
  const uint32_t mantissa = h & 0x3ffu;
  float magnitude;
  if (exponent == 0)
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  else if (exponent == 31)
    magnitude = mantissa ? NAN : INFINITY;
  else
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400u), exponent - 25);
  float out = magnitude;
  if (sign) out = -out;
  return out;
}

/// A little-endian two's complement integer of `bytes` (16 or 32) bytes as a double: its
/// magnitude summed from the top limb down (no cancellation between limbs), then its sign.
double wide_integer(const uint8_t* p, int bytes) {
  const int limbs = bytes / 8;
  uint64_t limb[4];
  std::memcpy(limb, p, static_cast<size_t>(bytes));
  const bool negative = (limb[limbs - 1] >> 63) != 0;
  if (negative) {  // the magnitude: invert and add one, carrying upwards
    bool carry = true;
    for (int k = 0; k < limbs; ++k) {
      limb[k] = ~limb[k] + (carry ? 1 : 0);
      carry = carry && limb[k] == 0;
    }
  }
  double v = 0;
  for (int k = limbs - 1; k >= 0; --k)
    v = v * 18446744073709551616.0 + static_cast<double>(limb[k]);
  return negative ? -v : v;
}

}  // namespace

BatchDecoder::BatchDecoder(const fb::RecordBatch* rb, const uint8_t* body, int64_t body_size,
                           const Dictionaries* dictionaries)
    : owned_(std::make_unique<IpcBatchSource>(rb, body, body_size)),
      source_(owned_.get()),
      dictionaries_(dictionaries) {}

BatchDecoder::BatchDecoder(BatchSource& source, const Dictionaries* dictionaries)
    : source_(&source), dictionaries_(dictionaries) {}

std::shared_ptr<Buffer> BatchDecoder::take(const uint8_t* p, int64_t size) {
  if (auto lent = source_->lend(p, size)) return lent;
  return copy(p, size);
}

// The node's rows decoded, then the rows before its offset sliced off.
Column BatchDecoder::column(const ArrowField& f) {
  const NodeInfo node = source_->node();
  Column c = values(f, node.rows, node.null_count);
  return node.offset == 0 ? c : c.slice(node.offset, node.rows - node.offset);
}

Column BatchDecoder::values(const ArrowField& f, int64_t n, int64_t nulls) {
  if (f.stored == Stored::Null) return Column::nulls(DataType(), n);  // no buffers at all
  auto [vp, vsize] = buffer();
  std::shared_ptr<Buffer> validity;
  if (nulls != 0 && vp != nullptr) {
    if (vsize < bitmap::bytes_for(n)) throw std::runtime_error("validity buffer too small");
    validity = take(vp, bitmap::bytes_for(n));
  }
  if (f.dictionary) {
    if (!dictionaries_) throw std::runtime_error("a dictionary-encoded field with no dictionaries");
    return decoded(f, n, validity);
  }
  switch (f.stored) {
    case Stored::Int:
      return integers(f, n, std::move(validity));
    case Stored::Scaled:
      return scaled(f, n, std::move(validity));
    case Stored::Half:
      return halves(n, std::move(validity));
    case Stored::Decimal:
      return decimals(f, n, std::move(validity));
    case Stored::FixedBinary:
      return fixed_binary(f, n, std::move(validity));
    case Stored::Large:
      return large(f, n, std::move(validity));
    case Stored::View:
      return views(f, n, std::move(validity));
    case Stored::ListView:
      return list_views(f, n, std::move(validity));
    case Stored::Plain:
    case Stored::Null:
      break;
  }
  const DataType& t = f.type;
  switch (t.id()) {
    case TypeId::Struct:
      return fields(f, n, std::move(validity));
    case TypeId::List:
    case TypeId::Map: {
      auto offsets = checked_offsets(n);
      const int32_t* o = reinterpret_cast<const int32_t*>(offsets->data());
      Column items = column(f.children[0]);
      if (o[n] > items.size()) throw std::runtime_error("list offsets past the items");
      return Column::nested(t, n, -1, validity, offsets, std::move(items));
    }
    case TypeId::FixedSizeList: {
      Column items = column(f.children[0]);
      // Divided, not multiplied: a row count and list size from the file could overflow.
      if (t.list_size() > 0 && n > items.size() / t.list_size())
        throw std::runtime_error("too few list items");
      return Column::nested(t, n, -1, validity, nullptr, std::move(items));
    }
    case TypeId::Utf8:
    case TypeId::Binary: {
      auto offsets = checked_offsets(n);
      const int32_t* o = reinterpret_cast<const int32_t*>(offsets->data());
      auto [dp, dsize] = buffer();
      if (o[n] > dsize) throw std::runtime_error("string offsets past the data");
      return Column::from_buffers(t, n, -1, validity, offsets, take(dp, o[n]));
    }
    case TypeId::Boolean: {
      auto [p, size] = buffer();
      if (size < bitmap::bytes_for(n)) throw std::runtime_error("values buffer too small");
      return Column::from_buffers(t, n, -1, validity, take(p, bitmap::bytes_for(n)));
    }
    default: {
      auto [p, size] = buffer();
      const int w = t.byte_width();
      if (size < n * w) throw std::runtime_error("values buffer too small");
      return Column::from_buffers(t, n, -1, validity, take(p, n * w));
    }
  }
}

// A struct: its validity (read already), then each child's nodes and buffers in field order.
Column BatchDecoder::fields(const ArrowField& f, int64_t n, std::shared_ptr<Buffer> validity) {
  std::vector<Column> children;
  for (const ArrowField& child : f.children) {
    children.push_back(column(child));
    if (children.back().size() < n)
      throw std::runtime_error("a struct field shorter than its struct");
  }
  return Column::nested(f.type, n, -1, std::move(validity), std::move(children));
}

// A dictionary-encoded column: its indices (checked against the dictionary) looked up.
Column BatchDecoder::decoded(const ArrowField& f, int64_t n,
                             const std::shared_ptr<Buffer>& validity) {
  const auto it = dictionaries_->find(*f.dictionary);
  if (it == dictionaries_->end())
    throw std::runtime_error("no dictionary batch with id " + std::to_string(*f.dictionary));
  const Column& dict = it->second;
  auto [p, size] = buffer();
  if (size < n * f.index_bytes) throw std::runtime_error("dictionary indices buffer too small");
  ColumnBuilder out(f.type, n);
  for (int64_t i = 0; i < n; ++i) {
    if (!valid(validity, i)) {
      out.append_null();
      continue;
    }
    const uint8_t* at = p + i * f.index_bytes;
    const int64_t k = f.index_signed || f.index_bytes == 8
                          ? load_signed(at, f.index_bytes)
                          : static_cast<int64_t>(load_unsigned(at, f.index_bytes));
    if (k < 0 || k >= dict.size())
      throw std::runtime_error("dictionary index " + std::to_string(k) + " past its " +
                               std::to_string(dict.size()) + " values");
    out.append_from(dict, k);
  }
  return out.finish();
}

// Stored integers in the ember type of `f`: copied when the widths agree, widened otherwise;
// an unsigned 64-bit value above 2^63 - 1 is an error (never a negative number).
Column BatchDecoder::integers(const ArrowField& f, int64_t n, std::shared_ptr<Buffer> validity) {
  auto [p, size] = buffer();
  const int stored = f.stored_bytes, w = f.type.byte_width();
  if (size < n * stored) throw std::runtime_error("values buffer too small");
  if (stored == w) {
    if (stored == 8 && f.int_unsigned) {
      for (int64_t i = 0; i < n; ++i) {
        // A null slot may hold any bits: only values count.
        const uint64_t v = load_unsigned(p + i * 8, 8);
        if (v > uint64_t{INT64_MAX} && valid(validity, i))
          throw std::runtime_error(
              "column '" + f.name + "': unsigned value " + std::to_string(v) +
              " does not fit in int64, which ember reads uint64 columns as (values up to " +
              std::to_string(INT64_MAX) + "); write the column as a signed or decimal type");
      }
    }
    return Column::from_buffers(f.type, n, -1, std::move(validity), take(p, n * w));
  }
  auto values = Buffer::allocate(n * w);
  uint8_t* out = detail::BufferAccess::mutable_data(*values);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = f.int_unsigned ? int64_t(load_unsigned(p + i * stored, stored))
                                     : load_signed(p + i * stored, stored);
    if (w == 4) {
      const auto v32 = static_cast<int32_t>(v);  // 8- and 16-bit values always fit
      std::memcpy(out + i * 4, &v32, 4);
    } else {
      std::memcpy(out + i * 8, &v, 8);
    }
  }
  return Column::from_buffers(f.type, n, -1, std::move(validity), std::move(values));
}

// Times, durations and timestamps in microseconds: the stored count times multiply, divided by
// divide (truncated toward zero); a value past int64's range is an error naming the column.
Column BatchDecoder::scaled(const ArrowField& f, int64_t n, std::shared_ptr<Buffer> validity) {
  auto [p, size] = buffer();
  const int stored = f.stored_bytes;
  if (size < n * stored) throw std::runtime_error("values buffer too small");
  auto values = Buffer::allocate(n * 8);
  auto* out = reinterpret_cast<int64_t*>(detail::BufferAccess::mutable_data(*values));
  for (int64_t i = 0; i < n; ++i) {
    if (!valid(validity, i)) continue;  // a null slot stays 0
    int64_t v = load_signed(p + i * stored, stored);
    if (__builtin_mul_overflow(v, f.multiply, &v))
      throw std::runtime_error("column '" + f.name + "': value " +
                               std::to_string(load_signed(p + i * stored, stored)) +
                               " is past the range of " + f.type.to_string() + " in microseconds");
    out[i] = v / f.divide;
  }
  return Column::from_buffers(f.type, n, -1, std::move(validity), std::move(values));
}

Column BatchDecoder::halves(int64_t n, std::shared_ptr<Buffer> validity) {
  auto [p, size] = buffer();
  if (size < n * 2) throw std::runtime_error("values buffer too small");
  auto values = Buffer::allocate(n * 4);
  auto* out = reinterpret_cast<float*>(detail::BufferAccess::mutable_data(*values));
  for (int64_t i = 0; i < n; ++i)
    out[i] = half_to_float(static_cast<uint16_t>(load_unsigned(p + i * 2, 2)));
  return Column::from_buffers(float32(), n, -1, std::move(validity), std::move(values));
}

// Decimals as float64: the unscaled integer (to double, rounded) over 10^scale.
Column BatchDecoder::decimals(const ArrowField& f, int64_t n, std::shared_ptr<Buffer> validity) {
  auto [p, size] = buffer();
  const int w = f.stored_bytes;
  if (size < n * w) throw std::runtime_error("values buffer too small");
  const double unit = std::pow(10.0, f.scale);
  auto values = Buffer::allocate(n * 8);
  auto* out = reinterpret_cast<double*>(detail::BufferAccess::mutable_data(*values));
  for (int64_t i = 0; i < n; ++i)
    if (valid(validity, i)) out[i] = wide_integer(p + i * w, w) / unit;
  return Column::from_buffers(float64(), n, -1, std::move(validity), std::move(values));
}

Column BatchDecoder::fixed_binary(const ArrowField& f, int64_t n,
                                  std::shared_ptr<Buffer> validity) {
  auto [p, size] = buffer();
  const int64_t w = f.stored_bytes;
  // Divided, not multiplied: a row count and width from the file could overflow.
  if (w > 0 && n > size / w) throw std::runtime_error("values buffer too small");
  if (n * w > INT32_MAX) throw std::runtime_error("more than 2 GiB of fixed-size binary values");
  auto offsets = Buffer::allocate((n + 1) * 4);
  auto* o = reinterpret_cast<int32_t*>(detail::BufferAccess::mutable_data(*offsets));
  for (int64_t i = 0; i <= n; ++i) o[i] = static_cast<int32_t>(i * w);
  return Column::from_buffers(binary(), n, -1, std::move(validity), std::move(offsets),
                              take(p, n * w));
}

// LargeUtf8, LargeBinary and LargeList: 64-bit offsets checked, rebased to the first one and
// narrowed (a batch whose values pass 2 GiB is refused); the data or items from there on.
Column BatchDecoder::large(const ArrowField& f, int64_t n, std::shared_ptr<Buffer> validity) {
  auto [p, size] = buffer();
  if (n > 0 && size < (n + 1) * 8) throw std::runtime_error("offsets buffer too small");
  std::vector<int64_t> wide(static_cast<size_t>(n + 1), 0);
  if (n > 0) std::memcpy(wide.data(), p, static_cast<size_t>((n + 1) * 8));
  if (wide[0] < 0) throw std::runtime_error("negative offset");
  for (int64_t i = 0; i < n; ++i)
    if (wide[size_t(i) + 1] < wide[size_t(i)]) throw std::runtime_error("offsets decrease");
  const int64_t first = wide[0], span = wide[size_t(n)] - first;
  if (span > INT32_MAX)
    throw std::runtime_error("column '" + f.name + "': a batch holds " + std::to_string(span) +
                             " bytes or items in one column, past the 2 GiB ember's " +
                             f.type.to_string() + " holds");
  auto offsets = Buffer::allocate((n + 1) * 4);
  auto* o = reinterpret_cast<int32_t*>(detail::BufferAccess::mutable_data(*offsets));
  for (int64_t i = 0; i <= n; ++i) o[i] = static_cast<int32_t>(wide[size_t(i)] - first);
  if (f.type.id() == TypeId::List) {
    Column items = column(f.children[0]);
    if (first + span > items.size()) throw std::runtime_error("list offsets past the items");
    return Column::nested(f.type, n, -1, std::move(validity), std::move(offsets),
                          items.slice(first, span));
  }
  auto [dp, dsize] = buffer();
  if (first + span > dsize) throw std::runtime_error("string offsets past the data");
  return Column::from_buffers(f.type, n, -1, std::move(validity), std::move(offsets),
                              take(dp + first, span));
}

std::shared_ptr<Buffer> BatchDecoder::checked_offsets(int64_t n) {
  auto [p, size] = buffer();
  if (n == 0 && size == 0) return Buffer::allocate(4);
  if (size < (n + 1) * 4) throw std::runtime_error("offsets buffer too small");
  auto out = take(p, (n + 1) * 4);  // only read from here on
  const int32_t* o = reinterpret_cast<const int32_t*>(out->data());
  if (o[0] < 0) throw std::runtime_error("negative offset");
  for (int64_t i = 0; i < n; ++i)
    if (o[i + 1] < o[i]) throw std::runtime_error("offsets decrease");
  return out;
}

}  // namespace ember::arrow_ipc
