// Grouped aggregate states: typed loops for sums and counts, scalar values for min/max/first.
#include "exec/relational/grouped_aggregate.h"

#include <cmath>
#include <limits>

#include "ember/error.h"
#include "exec/relational/key_encoder.h"

namespace ember {

namespace {

/// NaN above every number, so min/max never depend on the position of a NaN.
template <class F>
bool float_less(F x, F y) {
  if (std::isnan(x)) return false;
  if (std::isnan(y)) return true;
  return x < y;
}

bool value_less(const Value& a, const Value& b) {
  if (const auto* x = std::get_if<double>(&a)) return float_less(*x, std::get<double>(b));
  if (const auto* x = std::get_if<float>(&a)) return float_less(*x, std::get<float>(b));
  return a < b;
}

bool is_float(const DataType& t) { return t.id() == TypeId::Float64 || t.id() == TypeId::Float32; }

/// Adds each valid value of `values` (stored as T) to its group's sum in `sums`.
template <class T, class S>
void add_sums(const Column& values, const std::vector<uint32_t>& group_of, std::vector<S>& sums,
              std::vector<int64_t>& counts) {
  const T* v = values.size() > 0 ? values.values<T>() : nullptr;
  const int64_t n = values.size();
  const auto add = [&](int64_t i) {
    const uint32_t g = group_of[static_cast<size_t>(i)];
    sums[g] += static_cast<S>(v[i]);
    ++counts[g];
  };
  if (values.null_count() == 0) {
    for (int64_t i = 0; i < n; ++i) add(i);
  } else {
    for (int64_t i = 0; i < n; ++i)
      if (!values.is_null(i)) add(i);
  }
}

/// Calls f(i) for each non-null row i of `values`; without nulls, a loop with no test in it.
template <class F>
void for_each_valid(const Column& values, F f) {
  const int64_t n = values.size();
  if (values.null_count() == 0) {
    for (int64_t i = 0; i < n; ++i) f(i);
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    if (!values.is_null(i)) f(i);
}

}  // namespace

GroupedAggregate::GroupedAggregate(AggFunc f, DataType input, DataType result, std::string label)
    : func_(f), input_(std::move(input)), result_(std::move(result)), label_(std::move(label)) {}

void GroupedAggregate::resize(size_t groups) {
  count_.resize(groups, 0);
  switch (func_) {
    case AggFunc::Sum:
    case AggFunc::Mean:
      if (is_float(input_))
        float_sum_.resize(groups, 0.0);
      else
        int_sum_.resize(groups, 0);
      break;
    case AggFunc::Min:
    case AggFunc::Max:
    case AggFunc::First:
      best_.resize(groups);
      break;
    case AggFunc::CountDistinct:
      distinct_.resize(groups);
      break;
    case AggFunc::List:
      items_.resize(groups);
      break;
    case AggFunc::Count:
      break;
  }
}

void GroupedAggregate::update(const Column& values, const std::vector<uint32_t>& group_of) {
  const int64_t n = values.size();
  switch (func_) {
    case AggFunc::Count:
      if (values.type().id() == TypeId::Null) return;
      for_each_valid(values, [&](int64_t i) { ++count_[group_of[static_cast<size_t>(i)]]; });
      return;
    case AggFunc::Sum:
    case AggFunc::Mean:
      return update_sum(values, group_of);
    case AggFunc::Min:
    case AggFunc::Max:
      return update_best(values, group_of);
    case AggFunc::First:
      for (int64_t i = 0; i < n; ++i) {
        const uint32_t g = group_of[static_cast<size_t>(i)];
        if (count_[g]++ == 0) best_[g] = values.get(i);
      }
      return;
    case AggFunc::List:
      for (int64_t i = 0; i < n; ++i) {
        const uint32_t g = group_of[static_cast<size_t>(i)];
        items_[g].push_back(values.get(i));
        ++count_[g];
      }
      return;
    case AggFunc::CountDistinct: {
      if (values.type().id() == TypeId::Null) return;
      EncodedKeys enc;
      encode_keys({values}, n, enc);
      for (int64_t i = 0; i < n; ++i)
        if (!values.is_null(i)) distinct_[group_of[static_cast<size_t>(i)]].emplace(enc.row(i));
      return;
    }
  }
}

void GroupedAggregate::update_sum(const Column& values, const std::vector<uint32_t>& group_of) {
  const int64_t n = values.size();
  switch (values.type().id()) {
    case TypeId::Int64:
      return add_sums<int64_t>(values, group_of, int_sum_, count_);
    case TypeId::Int32:
      return add_sums<int32_t>(values, group_of, int_sum_, count_);
    case TypeId::Float64:
      return add_sums<double>(values, group_of, float_sum_, count_);
    case TypeId::Float32:
      return add_sums<float>(values, group_of, float_sum_, count_);
    case TypeId::Boolean:
      for (int64_t i = 0; i < n; ++i) {
        if (values.is_null(i)) continue;
        const uint32_t g = group_of[static_cast<size_t>(i)];
        int_sum_[g] += values.value<bool>(i) ? 1 : 0;
        ++count_[g];
      }
      return;
    default:
      return;  // Null input: nothing to add.
  }
}

void GroupedAggregate::update_best(const Column& values, const std::vector<uint32_t>& group_of) {
  const int64_t n = values.size();
  if (values.type().id() == TypeId::Int64) {
    // The hot case without a Value per row.
    const int64_t* v = n > 0 ? values.values<int64_t>() : nullptr;
    const bool min = func_ == AggFunc::Min;
    for_each_valid(values, [&](int64_t i) {
      const uint32_t g = group_of[static_cast<size_t>(i)];
      int64_t* best = std::get_if<int64_t>(&best_[g]);
      if (!best)
        best_[g] = v[i];
      else if (min ? v[i] < *best : *best < v[i])
        *best = v[i];
      ++count_[g];
    });
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (values.is_null(i)) continue;
    const uint32_t g = group_of[static_cast<size_t>(i)];
    offer(g, values.get(i));
    ++count_[g];
  }
}

void GroupedAggregate::offer(size_t g, const Value& candidate) {
  Value& best = best_[g];
  if (std::holds_alternative<std::monostate>(best)) {
    best = candidate;
    return;
  }
  const bool better =
      func_ == AggFunc::Min ? value_less(candidate, best) : value_less(best, candidate);
  if (better) best = candidate;
}

void GroupedAggregate::merge(const GroupedAggregate& later, const std::vector<uint32_t>& into) {
  for (size_t g = 0; g < into.size(); ++g) {
    const uint32_t t = into[g];
    if (t == kSkip) continue;
    switch (func_) {
      case AggFunc::Sum:
      case AggFunc::Mean:
        if (is_float(input_))
          float_sum_[t] += later.float_sum_[g];
        else
          int_sum_[t] += later.int_sum_[g];
        break;
      case AggFunc::Min:
      case AggFunc::Max:
        if (!std::holds_alternative<std::monostate>(later.best_[g])) offer(t, later.best_[g]);
        break;
      case AggFunc::First:
        if (count_[t] == 0 && later.count_[g] > 0) best_[t] = later.best_[g];
        break;
      case AggFunc::CountDistinct:
        distinct_[t].insert(later.distinct_[g].begin(), later.distinct_[g].end());
        break;
      case AggFunc::List:
        items_[t].insert(items_[t].end(), later.items_[g].begin(), later.items_[g].end());
        break;
      case AggFunc::Count:
        break;
    }
    count_[t] += later.count_[g];
  }
}

Column GroupedAggregate::finish(const std::vector<uint32_t>& order) const {
  switch (func_) {
    case AggFunc::Count: {
      std::vector<int64_t> out;
      for (uint32_t g : order) out.push_back(count_[g]);
      return Column::from(std::move(out));
    }
    case AggFunc::CountDistinct: {
      std::vector<int64_t> out;
      for (uint32_t g : order) out.push_back(static_cast<int64_t>(distinct_[g].size()));
      return Column::from(std::move(out));
    }
    case AggFunc::List: {
      ColumnBuilder b(result_, static_cast<int64_t>(order.size()));
      // No rows (a global list() of an empty input) is null, as in SQL.
      for (uint32_t g : order) {
        if (count_[g] == 0)
          b.append_null();
        else
          b.append_value(List{items_[g], input_});
      }
      return b.finish();
    }
    default:
      break;
  }
  ColumnBuilder b(result_, static_cast<int64_t>(order.size()));
  for (uint32_t g : order) {
    if (result_.id() == TypeId::Null || (func_ != AggFunc::First && count_[g] == 0)) {
      b.append_null();
      continue;
    }
    const bool int_input = !is_float(input_);
    switch (func_) {
      case AggFunc::Sum:
        if (!int_input) {
          b.append(float_sum_[g]);
        } else if (int_sum_[g] > std::numeric_limits<int64_t>::max() ||
                   int_sum_[g] < std::numeric_limits<int64_t>::min()) {
          throw InvalidArgument("the result of " + label_ +
                                " does not fit in int64; cast the input to float64 first");
        } else {
          b.append(static_cast<int64_t>(int_sum_[g]));
        }
        break;
      case AggFunc::Mean: {
        const double total = int_input ? static_cast<double>(int_sum_[g]) : float_sum_[g];
        b.append(total / static_cast<double>(count_[g]));
        break;
      }
      default:
        b.append_value(best_[g]);
        break;
    }
  }
  return b.finish();
}

}  // namespace ember
