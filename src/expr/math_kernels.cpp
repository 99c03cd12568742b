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

// x rounded to a multiple of 10^-digits (digits < 0), halves away from zero; nullopt when it
// does not fit.
bool round_int(int64_t x, int digits, int64_t* out) {
  if (digits >= 0) {
    *out = x;
    return true;
  }
  if (digits < -18) {
    *out = 0;
    return true;
  }
  int64_t p = 1;
  for (int k = 0; k < -digits; ++k) p *= 10;
  const int64_t q = x / p, rem = x % p;
  const bool up = (rem < 0 ? -rem : rem) >= p - (rem < 0 ? -rem : rem);
  return !__builtin_mul_overflow(q + (up ? (x < 0 ? -1 : 1) : 0), p, out);
}

double round_float(double x, int digits) {
  if (digits == 0 || !std::isfinite(x)) return std::round(x);
  const double m = std::pow(10.0, digits);
  const double scaled = x * m;
  if (!std::isfinite(scaled)) return x;  // more digits than a double holds: nothing to round
  return std::round(scaled) / m;
}

Column int_function(const ExprNode& e, const std::vector<Column>& args) {
  const int64_t* x = args[0].values<int64_t>();
  switch (e.function) {
    case FunctionId::Abs:
      return null_where(map_values<int64_t>(args, int64(),
                                            [x](int64_t i) {
                                              return x[i] == kMin ? 0 : x[i] < 0 ? -x[i] : x[i];
                                            }),
                        [x](int64_t i) { return x[i] == kMin; });
    case FunctionId::Round: {
      const int digits = int(std::get<int64_t>(e.params[0]));
      std::vector<uint8_t> bad(size_t(args[0].size()), 0);
      Column c = map_values<int64_t>(args, int64(), [&](int64_t i) {
        int64_t r = 0;
        bad[size_t(i)] = !round_int(x[i], digits, &r);
        return r;
      });
      return null_where(std::move(c), [&](int64_t i) { return bad[size_t(i)] != 0; });
    }
    case FunctionId::Floor:
    case FunctionId::Ceil:
      return args[0];
    case FunctionId::Sign:
      return map_values<int64_t>(args, int64(),
                                 [x](int64_t i) { return int64_t(x[i] > 0) - (x[i] < 0); });
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
    case FunctionId::Abs:
      return float_map(args, [](double v) { return std::fabs(v); });
    case FunctionId::Round: {
      const int digits = int(std::get<int64_t>(e.params[0]));
      return float_map(args, [digits](double v) { return round_float(v, digits); });
    }
    case FunctionId::Floor:
      return float_map(args, [](double v) { return std::floor(v); });
    case FunctionId::Ceil:
      return float_map(args, [](double v) { return std::ceil(v); });
    case FunctionId::Sqrt:
      return float_map(args, [](double v) { return std::sqrt(v); });
    case FunctionId::Exp:
      return float_map(args, [](double v) { return std::exp(v); });
    case FunctionId::Log:
      return float_map(args, [](double v) { return std::log(v); });
    case FunctionId::Log10:
      return float_map(args, [](double v) { return std::log10(v); });
    case FunctionId::Sign:
      return float_map(args,
                       [](double v) { return std::isnan(v) ? v : double((v > 0) - (v < 0)); });
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
    default:
      throw Error(std::string("internal: not a math kernel in ") + to_string(e));
  }
}

}  // namespace

Column math_function(const ExprNode& e, const std::vector<Column>& args, const DataType& type) {
  if (type.id() == TypeId::Int64) return int_function(e, args);
  return float_function(e, args);
}

}  // namespace ember
