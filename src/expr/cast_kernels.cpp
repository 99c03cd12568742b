// Casts between column types: fixed-width conversions, and utf8 parsing and printing.
#include "expr/cast_kernels.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "core/bit_packing.h"
#include "core/bitmap.h"
#include "core/buffer_access.h"
#include "core/timestamp_text.h"
#include "ember/error.h"
#include "expr/fused_kernels.h"
#include "expr/kernel_input.h"

namespace ember {

namespace {

std::shared_ptr<Buffer> copied_validity(const Column& c) {
  return c.validity_bits() ? bitmap::copy(c.validity_bits(), c.offset(), c.size()) : nullptr;
}

// The fixed-width conversions run the compiled programs' loops (expr/fused_kernels.h), bools as
// 0/1 bytes unpacked from and packed into bitmaps around them: one implementation of each cast
// serves both ways of evaluating.

Column int_to_float(const Column& c) {
  const int64_t n = c.size();
  auto out = detail::BufferAccess::allocate_uninitialized(n * 8);
  fused::cast_i64_f64(c.values<int64_t>(),
                      reinterpret_cast<double*>(detail::BufferAccess::mutable_data(*out)), n);
  return Column::from_buffers(float64(), n, c.null_count(), copied_validity(c), out);
}

Column bool_to_fixed(const Column& c, const DataType& to) {
  const int64_t n = c.size();
  std::vector<uint8_t> bytes(static_cast<size_t>(n));
  bitmap::unpack(c.bool_bits(), c.offset(), bytes.data(), n);
  auto out = detail::BufferAccess::allocate_uninitialized(n * 8);
  uint8_t* d = detail::BufferAccess::mutable_data(*out);
  if (to.id() == TypeId::Int64)
    fused::cast_u8_i64(bytes.data(), reinterpret_cast<int64_t*>(d), n);
  else
    fused::cast_u8_f64(bytes.data(), reinterpret_cast<double*>(d), n);
  return Column::from_buffers(to, n, c.null_count(), copied_validity(c), out);
}

template <class T>
Column fixed_to_bool(const Column& c) {
  const int64_t n = c.size();
  std::vector<uint8_t> bytes(static_cast<size_t>(n));
  if constexpr (std::is_same_v<T, int64_t>)
    fused::cast_i64_u8(c.values<int64_t>(), bytes.data(), n);
  else
    fused::cast_f64_u8(c.values<double>(), bytes.data(), n);
  auto bits = detail::BufferAccess::allocate_uninitialized(bitmap::bytes_for(n));
  bitmap::pack(bytes.data(), detail::BufferAccess::mutable_data(*bits), n);
  return Column::from_buffers(boolean(), n, c.null_count(), copied_validity(c), bits);
}

// float64 -> int64: values outside int64's range (and NaN) have no integer; they become null.
Column float_to_int(const Column& c) {
  const int64_t n = c.size();
  const double* p = c.values<double>();
  auto out = detail::BufferAccess::allocate_uninitialized(n * 8);
  int64_t* d = reinterpret_cast<int64_t*>(detail::BufferAccess::mutable_data(*out));
  if (!fused::cast_f64_i64(p, d, n)) {
    return Column::from_buffers(int64(), n, c.null_count(), copied_validity(c), out);
  }
  auto ok = kernel::bits_where(
      n, [p](int64_t i) { return p[i] >= -9223372036854775808.0 && p[i] < 9223372036854775808.0; });
  auto valid = bitmap::and_of(ok->data(), 0, c.validity_bits(), c.offset(), n);
  return Column::from_buffers(int64(), n, -1, valid, out);
}

Column to_utf8(const Column& c) {
  ColumnBuilder b(utf8(), c.size());
  char buf[64];
  for (int64_t i = 0; i < c.size(); ++i) {
    if (c.is_null(i)) {
      b.append_null();
      continue;
    }
    switch (c.type().id()) {
      case TypeId::Boolean:
        b.append(std::string_view(c.value<bool>(i) ? "true" : "false"));
        break;
      case TypeId::Int64: {
        auto r = std::to_chars(buf, buf + sizeof(buf), c.values<int64_t>()[i]);
        b.append(std::string_view(buf, size_t(r.ptr - buf)));
        break;
      }
      default: {
        auto r = std::to_chars(buf, buf + sizeof(buf), c.values<double>()[i]);
        b.append(std::string_view(buf, size_t(r.ptr - buf)));
        break;
      }
    }
  }
  return b.finish();
}

std::string_view trimmed(std::string_view s) {
  const char* ws = " \t\r\n";
  const size_t first = s.find_first_not_of(ws);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(ws) - first + 1);
}

// Parses the whole of `s` as T; false on any leftover character or range error.
template <class T>
bool parse_number(std::string_view s, T& out) {
  s = trimmed(s);
  if (s.size() > 1 && s[0] == '+' && s[1] != '-') s.remove_prefix(1);
  if (s.empty()) return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool parse_bool(std::string_view s, bool& out) {
  s = trimmed(s);
  auto is = [s](std::string_view word) {
    if (s.size() != word.size()) return false;
    for (size_t i = 0; i < s.size(); ++i) {
      if ((s[i] | 0x20) != word[i]) return false;
    }
    return true;
  };
  if (is("true") || s == "1") return out = true, true;
  if (is("false") || s == "0") return out = false, true;
  return false;
}

// utf8 -> T: rows that do not parse become null.
template <class T>
Column parse_utf8(const Column& c, const DataType& to) {
  const int64_t n = c.size();
  const bool bits = std::is_same_v<T, bool>;
  auto out = Buffer::allocate(bits ? bitmap::bytes_for(n) : n * int64_t(sizeof(T)));
  auto ok = Buffer::allocate(bitmap::bytes_for(n));
  const int32_t* o = c.offsets();
  for (int64_t i = 0; i < n; ++i) {
    if (c.is_null(i)) continue;
    const std::string_view s(c.chars() + o[i], size_t(o[i + 1] - o[i]));
    T v{};
    bool parsed;
    if constexpr (std::is_same_v<T, bool>)
      parsed = parse_bool(s, v);
    else
      parsed = parse_number(s, v);
    if (!parsed) continue;
    set_bit(detail::BufferAccess::mutable_data(*ok), i);
    if constexpr (std::is_same_v<T, bool>) {
      if (v) set_bit(detail::BufferAccess::mutable_data(*out), i);
    } else {
      reinterpret_cast<T*>(detail::BufferAccess::mutable_data(*out))[i] = v;
    }
  }
  return Column::from_buffers(to, n, -1, ok, out);
}

Column from_utf8(const Column& c, const DataType& to) {
  switch (to.id()) {
    case TypeId::Int64:
      return parse_utf8<int64_t>(c, to);
    case TypeId::Float64:
      return parse_utf8<double>(c, to);
    default:
      return parse_utf8<bool>(c, to);
  }
}

// The same buffers under another type of one layout (timestamp <-> int64, utf8 -> binary).
Column relabelled(const Column& c, const DataType& to) {
  return Column::from_buffers(to, c.size(), c.null_count(), c.validity_buffer(), c.values_buffer(),
                              c.data_buffer(), c.offset());
}

// int32/float32 <-> int64/float64, element by element; values a narrower type cannot hold
// (out of int32's range) become null.
template <class From, class To>
Column convert_fixed(const Column& c, const DataType& to) {
  const int64_t n = c.size();
  const From* src = c.values<From>();
  auto out = detail::BufferAccess::allocate_uninitialized(n * int64_t(sizeof(To)));
  To* d = reinterpret_cast<To*>(detail::BufferAccess::mutable_data(*out));
  bool lost = false;
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<To, int32_t>) {
      const bool fits = src[i] >= -2147483648.0 && src[i] <= 2147483647.0;
      d[i] = fits ? static_cast<int32_t>(src[i]) : 0;
      lost |= !fits;
    } else {
      d[i] = static_cast<To>(src[i]);
    }
  }
  if (!lost) return Column::from_buffers(to, n, c.null_count(), copied_validity(c), out);
  auto ok = kernel::bits_where(
      n, [src](int64_t i) { return src[i] >= -2147483648.0 && src[i] <= 2147483647.0; });
  auto valid = bitmap::and_of(ok->data(), 0, c.validity_bits(), c.offset(), n);
  return Column::from_buffers(to, n, -1, valid, out);
}

// list(T) <-> fixed_size_list(T, n): a list of another length becomes null.
Column cast_list(const Column& c, const DataType& to) {
  ColumnBuilder b(to, c.size());
  for (int64_t i = 0; i < c.size(); ++i) {
    const auto [first, last] = c.list_range(i);
    if (c.is_null(i) || (to.id() == TypeId::FixedSizeList && last - first != to.list_size()))
      b.append_null();
    else
      b.append_from(c, i);
  }
  return b.finish();
}

Column timestamp_from_utf8(const Column& c) {
  ColumnBuilder b(timestamp_us(), c.size());
  for (int64_t i = 0; i < c.size(); ++i) {
    const auto t = c.is_null(i) ? std::nullopt : parse_timestamp(c.value<std::string_view>(i));
    if (t)
      b.append(Timestamp{*t});
    else
      b.append_null();
  }
  return b.finish();
}

Column timestamp_to_utf8(const Column& c) {
  ColumnBuilder b(utf8(), c.size());
  for (int64_t i = 0; i < c.size(); ++i) {
    if (c.is_null(i))
      b.append_null();
    else
      b.append(format_timestamp(c.values<int64_t>()[i]));
  }
  return b.finish();
}

// Dates: ISO 8601 text (YYYY-MM-DD; anything else, or a day that does not exist, is null), and
// the instant of a date's midnight or the day an instant falls in. A date too far from 1970 for
// a timestamp (past about 292,000 years) becomes null.
Column date_cast(const Column& c, const DataType& to) {
  constexpr int64_t kDay = 86400LL * 1000000;
  constexpr int64_t kMaxDays = std::numeric_limits<int64_t>::max() / kDay;
  ColumnBuilder b(to, c.size());
  const TypeId from = c.type().id();
  for (int64_t i = 0; i < c.size(); ++i) {
    if (c.is_null(i)) {
      b.append_null();
    } else if (from == TypeId::Utf8) {
      const auto days = parse_date(c.value<std::string_view>(i));
      if (days && *days >= INT32_MIN && *days <= INT32_MAX) {
        b.append(Date{int32_t(*days)});
      } else {
        b.append_null();
      }
    } else if (from == TypeId::Timestamp) {
      const int64_t t = c.values<int64_t>()[i];
      b.append(Date{int32_t(t / kDay - (t % kDay < 0 ? 1 : 0))});
    } else if (to.id() == TypeId::Utf8) {
      b.append(format_date(c.values<int32_t>()[i]));
    } else {
      const int64_t days = c.values<int32_t>()[i];
      if (days < -kMaxDays || days > kMaxDays) {
        b.append_null();
      } else {
        b.append(Timestamp{days * kDay});
      }
    }
  }
  return b.finish();
}

// Casts that involve the types added after the first four.
std::optional<Column> cast_newer(const Column& c, const DataType& to) {
  const TypeId from = c.type().id();
  if (c.type().is_list()) return cast_list(c, to);
  if (from == TypeId::Date32 || to.id() == TypeId::Date32) return date_cast(c, to);
  if (from == TypeId::Timestamp)
    return to.id() == TypeId::Utf8 ? timestamp_to_utf8(c) : relabelled(c, int64());
  if (to.id() == TypeId::Timestamp)
    return from == TypeId::Utf8 ? timestamp_from_utf8(c) : relabelled(c, to);
  if (to.id() == TypeId::Binary) return relabelled(c, to);
  if (from == TypeId::Int32) return cast_column(convert_fixed<int32_t, int64_t>(c, int64()), to);
  if (from == TypeId::Float32) return cast_column(convert_fixed<float, double>(c, float64()), to);
  if (to.id() == TypeId::Int32) {
    const Column wide = cast_column(c, float64());  // exact for every int32
    return convert_fixed<double, int32_t>(wide, to);
  }
  if (to.id() == TypeId::Float32)
    return convert_fixed<double, float>(cast_column(c, float64()), to);
  return std::nullopt;
}

}  // namespace

Column cast_column(const Column& c, const DataType& to) {
  const TypeId from = c.type().id();
  if (c.type() == to) return c;
  if (from == TypeId::Null) return Column::nulls(to, c.size());
  if (from > TypeId::Utf8 || to.id() > TypeId::Utf8) {
    if (auto out = cast_newer(c, to)) return *out;
  }
  if (to.id() == TypeId::Utf8) return to_utf8(c);
  if (from == TypeId::Utf8) return from_utf8(c, to);
  if (from == TypeId::Boolean) return bool_to_fixed(c, to);
  if (to.id() == TypeId::Boolean) {
    return from == TypeId::Int64 ? fixed_to_bool<int64_t>(c) : fixed_to_bool<double>(c);
  }
  if (from == TypeId::Int64 && to.id() == TypeId::Float64) {
    return int_to_float(c);
  }
  if (from == TypeId::Float64 && to.id() == TypeId::Int64) return float_to_int(c);
  throw TypeError("cannot cast " + c.type().to_string() + " to " + to.to_string());
}

}  // namespace ember
