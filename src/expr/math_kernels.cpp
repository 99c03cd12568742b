// Math kernels: one tight loop per function over the values; nulls come from the validity of
// the arguments, plus the rows whose integer result does not fit in int64.
#include "expr/math_kernels.h"

#include <cmath>
#include <limits>

#include "core/bitmap.h"
#include "core/buffer_access.h"
#include "ember/error.h"
#include "expr/expr_text.h"
#include "expr/kernel_input.h"
#include "expr/math_scalar.h"

namespace ember {

namespace {

std::shared_ptr<Buffer> validity_of_all(const std::vector<Column>& args, int64_t n) {
  std::shared_ptr<Buffer> v;
  for (const Column& c : args) {
    v = bitmap::and_of(v ? v->data() : nullptr, 0, c.validity_bits(), c.offset(), n);
  }
  return v;
}

// Applies `f` to every row; `fits(i)` false makes row i null (an integer result out of range).
template <class T, class F>
Column map_values(const std::vector<Column>& args, DataType type, F f) {
  const int64_t n = args[0].size();
  auto out = detail::BufferAccess::allocate_uninitialized(n * int64_t(sizeof(T)));
  T* d = reinterpret_cast<T*>(detail::BufferAccess::mutable_data(*out));
  for (int64_t i = 0; i < n; ++i) d[i] = f(i);
  return Column::from_buffers(std::move(type), n, -1, validity_of_all(args, n), std::move(out));
}

// Nulls the rows where `bad(i)`.
template <class Bad>
Column null_where(Column c, Bad bad) {
  bool any = false;
  for (int64_t i = 0; i < c.size() && !any; ++i) any = bad(i);
  if (!any) return c;
  auto ok = kernel::bits_where(c.size(), [&](int64_t i) { return !bad(i); });
  auto valid = bitmap::and_of(ok->data(), 0, c.validity_bits(), c.offset(), c.size());
  return Column::from_buffers(c.type(), c.size(), -1, valid, c.values_buffer(), nullptr,
                              c.offset());
}

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

Column int_function(const ExprNode& e, const std::vector<Column>& args) {
  const int64_t* x = args[0].values<int64_t>();
  switch (e.function) {
    case FunctionId::Abs:
      return null_where(
          map_values<int64_t>(args, int64(), [x](int64_t i) { return math::abs_int(x[i]); }),
          [x](int64_t i) { return x[i] == kMin; });
    case FunctionId::Round: {
      const int digits = int(std::get<int64_t>(e.params[0]));
      std::vector<uint8_t> bad(size_t(args[0].size()), 0);
      Column c = map_values<int64_t>(args, int64(), [&](int64_t i) {
        int64_t r = 0;
        bad[size_t(i)] = !math::round_int(x[i], digits, &r);
        return r;
      });
      return null_where(std::move(c), [&](int64_t i) { return bad[size_t(i)] != 0; });
    }
    case FunctionId::Floor:
    case FunctionId::Ceil:
      return args[0];
    case FunctionId::Sign:
      return map_values<int64_t>(args, int64(), [x](int64_t i) { return math::sign_int(x[i]); });
    case FunctionId::Clip: {
      const int64_t* lo = args[1].values<int64_t>();
      const int64_t* hi = args[2].values<int64_t>();
      return map_values<int64_t>(args, int64(),
                                 [=](int64_t i) { return std::min(std::max(x[i], lo[i]), hi[i]); });
    }
    default:
      throw Error(std::string("internal: not an integer math kernel in ") + to_string(e));
  }
}

template <class F>
Column float_map(const std::vector<Column>& args, F f) {
  const double* x = args[0].values<double>();
  return map_values<double>(args, float64(), [x, f](int64_t i) { return f(x[i]); });
}

Column float_function(const ExprNode& e, const std::vector<Column>& args) {
  switch (e.function) {
    case FunctionId::Pow: {
      const double *x = args[0].values<double>(), *y = args[1].values<double>();
      return map_values<double>(args, float64(), [=](int64_t i) { return std::pow(x[i], y[i]); });
    }
    case FunctionId::Clip: {
      const double *x = args[0].values<double>(), *lo = args[1].values<double>(),
                   *hi = args[2].values<double>();
      return map_values<double>(args, float64(), [=](int64_t i) {
        return std::isnan(x[i]) ? x[i] : std::min(std::max(x[i], lo[i]), hi[i]);
      });
    }
    default: {
      const FunctionId f = e.function;
      const int digits = f == FunctionId::Round ? int(std::get<int64_t>(e.params[0])) : 0;
      return math::with_unary_float(f, digits, [&](auto op) { return float_map(args, op); });
    }
  }
}

}  // namespace

Column math_function(const ExprNode& e, const std::vector<Column>& args, const DataType& type) {
  if (type.id() == TypeId::Int64) return int_function(e, args);
  return float_function(e, args);
}

}  // namespace ember
