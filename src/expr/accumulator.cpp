// Aggregate accumulators: tight loops per type for the common null-free case.
#include "expr/accumulator.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include "core/bitmap.h"
#include "ember/error.h"

namespace ember {

namespace {

/// A total order on doubles with NaN above every number, so min/max never depend on the
/// position of a NaN in the input.
bool float_less(double a, double b) {
  if (std::isnan(a)) return false;
  if (std::isnan(b)) return true;
  return a < b;
}

bool value_less(const Value& a, const Value& b) {
  if (const auto* x = std::get_if<double>(&a)) return float_less(*x, std::get<double>(b));
  if (const auto* x = std::get_if<float>(&a)) return float_less(*x, std::get<float>(b));
  return a < b;
}

/// A min or max of stored values of type T as the Value of a column of type `t`.
template <class T>
Value extreme_value(T v, TypeId t) {
  if (t == TypeId::Date32) return Date{static_cast<int32_t>(v)};
  if (t == TypeId::Timestamp) return Timestamp{static_cast<int64_t>(v)};
  if constexpr (std::is_floating_point_v<T>) return v;  // float stays float, double double
  return static_cast<int64_t>(v);
}

/// Calls `f(i)` for every non-null row of `c`.
template <class F>
void for_each_valid(const Column& c, F&& f) {
  const int64_t n = c.size();
  if (c.null_count() == 0) {
    for (int64_t i = 0; i < n; ++i) f(i);
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    if (!c.is_null(i)) f(i);
}

/// The sum of `n` values as doubles, in eight interleaved lanes that the compiler turns into
/// vector additions: one running sum would wait on each addition in turn (a 4-cycle latency
/// per value). The lanes also bound the rounding error better than one long chain.
template <class T>
double lane_sum(const T* v, int64_t n) {
  // Eight named sums rather than an array: the compiler keeps them in registers.
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    s0 += static_cast<double>(v[i]);
    s1 += static_cast<double>(v[i + 1]);
    s2 += static_cast<double>(v[i + 2]);
    s3 += static_cast<double>(v[i + 3]);
    s4 += static_cast<double>(v[i + 4]);
    s5 += static_cast<double>(v[i + 5]);
    s6 += static_cast<double>(v[i + 6]);
    s7 += static_cast<double>(v[i + 7]);
  }
  double s = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
  for (; i < n; ++i) s += static_cast<double>(v[i]);
  return s;
}

/// Min and max over one batch of a fixed-width column, skipping nulls.
template <class T, class Less>
void batch_extremes(const Column& c, Less less, bool& any, T& lo, T& hi) {
  const T* v = c.values<T>();
  for_each_valid(c, [&](int64_t i) {
    if (!any) {
      lo = hi = v[i];
      any = true;
      return;
    }
    if (less(v[i], lo)) lo = v[i];
    if (less(hi, v[i])) hi = v[i];
  });
}

}  // namespace

Accumulator::Accumulator(AggFunc f, DataType input, DataType result, std::string label)
    : func_(f), input_(std::move(input)), result_(std::move(result)), label_(std::move(label)) {}

void Accumulator::update(const Column& values) {
  if (func_ == AggFunc::Count) {
    count_ += values.type().id() == TypeId::Null ? 0 : values.size() - values.null_count();
    return;
  }
  switch (values.type().id()) {
    case TypeId::Int64:
    case TypeId::Timestamp:
      update_numeric<int64_t>(values);
      break;
    case TypeId::Int32:
    case TypeId::Date32:
      update_numeric<int32_t>(values);
      break;
    case TypeId::Float64:
      update_numeric<double>(values);
      break;
    case TypeId::Float32:
      update_numeric<float>(values);
      break;
    case TypeId::Boolean:
      update_bool(values);
      break;
    case TypeId::Utf8:
      update_utf8(values);
      break;
    default:
      break;  // Null input: nothing to add.
  }
}

// Sums in __int128 or double whatever the stored width; min and max in the stored type.
template <class T>
void Accumulator::update_numeric(const Column& values) {
  count_ += values.size() - values.null_count();
  const T* v = values.values<T>();
  if (func_ == AggFunc::Sum || func_ == AggFunc::Mean) {
    if constexpr (std::is_integral_v<T>) {
      // A batch's int32 values cannot overflow an int64 (under 2^31 rows of |v| <= 2^31).
      std::conditional_t<sizeof(T) == 4, int64_t, __int128> s = 0;
      for_each_valid(values, [&](int64_t i) { s += v[i]; });
      int_sum_ += s;
    } else if (values.null_count() == 0) {
      float_sum_ += lane_sum(v, values.size());
    } else {
      double s = float_sum_;
      for_each_valid(values, [&](int64_t i) { s += static_cast<double>(v[i]); });
      float_sum_ = s;
    }
    return;
  }
  bool any = false;
  T lo{}, hi{};
  if constexpr (std::is_integral_v<T>)
    batch_extremes<T>(values, std::less<T>(), any, lo, hi);
  else
    batch_extremes<T>(values, float_less, any, lo, hi);
  if (any) offer(extreme_value(func_ == AggFunc::Min ? lo : hi, values.type().id()));
}

void Accumulator::update_bool(const Column& values) {
  const int64_t valid = values.size() - values.null_count();
  count_ += valid;
  int64_t trues = 0;
  if (values.null_count() == 0) {
    trues = bitmap::count_set(values.bool_bits(), values.offset(), values.size());
  } else {
    for_each_valid(values, [&](int64_t i) { trues += values.value<bool>(i) ? 1 : 0; });
  }
  int_sum_ += trues;
  if (valid == 0 || func_ == AggFunc::Sum) return;
  // min is false unless every value is true; max is true if any is.
  if (func_ == AggFunc::Min) offer(Value(trues == valid));
  if (func_ == AggFunc::Max) offer(Value(trues > 0));
}

void Accumulator::update_utf8(const Column& values) {
  count_ += values.size() - values.null_count();
  bool any = false;
  std::string_view best;
  for_each_valid(values, [&](int64_t i) {
    std::string_view s = values.value<std::string_view>(i);
    if (!any || (func_ == AggFunc::Min ? s < best : best < s)) best = s;
    any = true;
  });
  if (any) offer(Value(std::string(best)));
}

void Accumulator::offer(const Value& candidate) {
  if (std::holds_alternative<std::monostate>(best_)) {
    best_ = candidate;
    return;
  }
  const bool better =
      func_ == AggFunc::Min ? value_less(candidate, best_) : value_less(best_, candidate);
  if (better) best_ = candidate;
}

void Accumulator::merge(const Accumulator& later) {
  count_ += later.count_;
  int_sum_ += later.int_sum_;
  float_sum_ += later.float_sum_;
  if (!std::holds_alternative<std::monostate>(later.best_)) offer(later.best_);
}

Column Accumulator::finish() const {
  if (func_ == AggFunc::Count) return Column::from(std::vector<int64_t>{count_});
  if (count_ == 0 || result_.id() == TypeId::Null) return Column::nulls(result_, 1);
  const bool int_input = input_.id() != TypeId::Float64 && input_.id() != TypeId::Float32;
  switch (func_) {
    case AggFunc::Sum:
      if (!int_input) return Column::from(std::vector<double>{float_sum_});
      if (int_sum_ > std::numeric_limits<int64_t>::max() ||
          int_sum_ < std::numeric_limits<int64_t>::min()) {
        throw InvalidArgument("the result of " + label_ +
                              " does not fit in int64; cast the input to float64 first");
      }
      return Column::from(std::vector<int64_t>{static_cast<int64_t>(int_sum_)});
    case AggFunc::Mean: {
      const double total = int_input ? static_cast<double>(int_sum_) : float_sum_;
      return Column::from(std::vector<double>{total / static_cast<double>(count_)});
    }
    default:
      return Column::repeat(best_, result_, 1);
  }
}

}  // namespace ember
