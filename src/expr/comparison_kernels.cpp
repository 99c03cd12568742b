// Comparisons over whole columns into result bitmaps.
#include "expr/comparison_kernels.h"

#include <functional>
#include <string_view>
#include <vector>

#include "core/bit_packing.h"
#include "core/buffer_access.h"
#include "expr/cast_kernels.h"
#include "expr/fused_kernels.h"
#include "expr/kernel_input.h"

namespace ember {

namespace {

// Instantiates the loop for one comparison functor.
template <class F>
std::shared_ptr<Buffer> with_comparator(BinaryOp op, F&& f) {
  switch (op) {
    case BinaryOp::Eq:
      return f(std::equal_to<>());
    case BinaryOp::Ne:
      return f(std::not_equal_to<>());
    case BinaryOp::Lt:
      return f(std::less<>());
    case BinaryOp::Le:
      return f(std::less_equal<>());
    case BinaryOp::Gt:
      return f(std::greater<>());
    default:
      return f(std::greater_equal<>());
  }
}

// int64 and float64 go through the compiled programs' loops (expr/fused_kernels.h) into 0/1
// bytes, then packed: one implementation of each comparison serves both ways of evaluating.
template <class T>
std::shared_ptr<Buffer> compare_fixed(BinaryOp op, const Operand& a, const Operand& b, int64_t n) {
  thread_local std::vector<uint8_t> bytes;
  bytes.resize(static_cast<size_t>(n));
  T scalar_a{}, scalar_b{};
  const T* pa = kernel::values_or_scalar<T>(a, scalar_a);
  const T* pb = kernel::values_or_scalar<T>(b, scalar_b);
  if constexpr (std::is_same_v<T, int64_t>) {
    fused::compare_i64(op, kernel::shape_of(a, b), pa, pb, bytes.data(), n);
  } else {
    fused::compare_f64(op, kernel::shape_of(a, b), pa, pb, bytes.data(), n);
  }
  auto out = detail::BufferAccess::allocate_uninitialized(bitmap::bytes_for(n));
  bitmap::pack(bytes.data(), detail::BufferAccess::mutable_data(*out), n);
  return out;
}

std::shared_ptr<Buffer> compare_utf8(BinaryOp op, const Operand& a, const Operand& b, int64_t n) {
  // std::string_view compares through char_traits<char>, which orders bytes as unsigned char.
  auto reader = [](const Operand& o) {
    return kernel::Utf8Read{o.column.offsets(), o.column.chars()};
  };
  return with_comparator(op, [&](auto cmp) {
    if (a.is_scalar) {
      const std::string_view s = std::get<std::string>(a.scalar);
      const auto rb = reader(b);
      return kernel::bits_where(n, [&](int64_t i) { return cmp(s, rb(i)); });
    }
    const auto ra = reader(a);
    if (b.is_scalar) {
      const std::string_view s = std::get<std::string>(b.scalar);
      return kernel::bits_where(n, [&](int64_t i) { return cmp(ra(i), s); });
    }
    const auto rb = reader(b);
    return kernel::bits_where(n, [&](int64_t i) { return cmp(ra(i), rb(i)); });
  });
}

// 64 bools of an operand as one word (a scalar repeats its bit).
uint64_t bool_word(const Operand& o, int64_t n, int64_t w) {
  if (o.is_scalar) return std::get<bool>(o.scalar) ? ~uint64_t(0) : 0;
  return bitmap::read_word(o.column.bool_bits(), o.column.offset(), n, w);
}

// On bools every comparison is a bitwise formula (false < true).
std::shared_ptr<Buffer> compare_bool(BinaryOp op, const Operand& a, const Operand& b, int64_t n) {
  auto out = detail::BufferAccess::allocate_uninitialized(bitmap::bytes_for(n));
  uint8_t* d = detail::BufferAccess::mutable_data(*out);
  for (int64_t w = 0; w < bitmap::words_for(n); ++w) {
    const uint64_t x = bool_word(a, n, w);
    const uint64_t y = bool_word(b, n, w);
    uint64_t r;
    switch (op) {
      case BinaryOp::Eq:
        r = ~(x ^ y);
        break;
      case BinaryOp::Ne:
        r = x ^ y;
        break;
      case BinaryOp::Lt:
        r = ~x & y;
        break;
      case BinaryOp::Le:
        r = ~x | y;
        break;
      case BinaryOp::Gt:
        r = x & ~y;
        break;
      default:
        r = x | ~y;
        break;
    }
    const int64_t bits = std::min<int64_t>(64, n - 64 * w);
    if (bits < 64) r &= (uint64_t(1) << bits) - 1;
    std::memcpy(d + 8 * w, &r, 8);
  }
  return out;
}

Operand as_float64(const Operand& o) {
  if (o.type.id() != TypeId::Int64) return o;
  if (o.is_scalar) return Operand::of(Value{double(std::get<int64_t>(o.scalar))}, float64());
  return Operand::of(cast_column(o.column, float64()));
}

}  // namespace

Column compare(BinaryOp op, const Operand& a, const Operand& b, int64_t n) {
  if (a.all_null() || b.all_null()) return Column::nulls(boolean(), n);
  auto valid = kernel::combined_validity(a, b, n);
  std::shared_ptr<Buffer> bits;
  const TypeId ta = a.type.id();
  const TypeId tb = b.type.id();
  if (ta == TypeId::Utf8) {
    bits = compare_utf8(op, a, b, n);
  } else if (ta == TypeId::Boolean) {
    bits = compare_bool(op, a, b, n);
  } else if (ta == TypeId::Int64 && tb == TypeId::Int64) {
    bits = compare_fixed<int64_t>(op, a, b, n);
  } else {
    bits = compare_fixed<double>(op, as_float64(a), as_float64(b), n);
  }
  return Column::from_buffers(boolean(), n, -1, valid, bits);
}

}  // namespace ember
