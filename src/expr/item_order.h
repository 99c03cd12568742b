// Reading, comparing and ordering the items of a list column by index: the order list_sort,
// list_distinct, list_min and list_max share.
#pragma once

#include <cmath>
#include <cstdint>

#include "ember/column.h"

namespace ember {

/// Item k of a numeric column as int64 (int32 widens; floats truncate).
inline int64_t item_as_int(const Column& items, int64_t k) {
  switch (items.type().id()) {
    case TypeId::Int32:
    case TypeId::Date32:
      return items.values<int32_t>()[k];
    case TypeId::Int64:
    case TypeId::Timestamp:
      return items.values<int64_t>()[k];
    default:
      return 0;
  }
}

/// Item k of a numeric column as float64.
inline double item_as_double(const Column& items, int64_t k) {
  switch (items.type().id()) {
    case TypeId::Int32:
    case TypeId::Int64:
      return double(item_as_int(items, k));
    case TypeId::Float32:
      return items.values<float>()[k];
    default:
      return items.values<double>()[k];
  }
}

/// Strict weak order over the items of one column: ascending, NaN above every number, nulls
/// last. Items are numbers, bool, utf8 or timestamps.
struct ItemOrder {
  const Column& items;  ///< the item column the indices refer to

  /// Item a comes before item b.
  bool operator()(int64_t a, int64_t b) const {
    const bool na = items.is_null(a), nb = items.is_null(b);
    if (na || nb) return !na && nb;
    switch (items.type().id()) {
      case TypeId::Int32:
      case TypeId::Int64:
      case TypeId::Timestamp:
      case TypeId::Date32:
        return item_as_int(items, a) < item_as_int(items, b);
      case TypeId::Float32:
      case TypeId::Float64: {
        const double x = item_as_double(items, a), y = item_as_double(items, b);
        if (std::isnan(x) || std::isnan(y)) return !std::isnan(x) && std::isnan(y);
        return x < y;
      }
      case TypeId::Boolean:
        return !items.value<bool>(a) && items.value<bool>(b);
      default:
        return items.value<std::string_view>(a) < items.value<std::string_view>(b);
    }
  }
};

/// Whether item k (not null) equals the value `v` (numbers by value).
inline bool item_equals(const Column& items, int64_t k, const Value& v) {
  switch (items.type().id()) {
    case TypeId::Int32:
    case TypeId::Int64:
      if (auto* i = std::get_if<int64_t>(&v)) return item_as_int(items, k) == *i;
      [[fallthrough]];
    case TypeId::Float32:
    case TypeId::Float64:
      if (auto* d = std::get_if<double>(&v)) return item_as_double(items, k) == *d;
      if (auto* f = std::get_if<float>(&v)) return item_as_double(items, k) == double(*f);
      if (auto* i = std::get_if<int64_t>(&v)) return item_as_double(items, k) == double(*i);
      return false;
    case TypeId::Date32:
      if (auto* d = std::get_if<Date>(&v)) return item_as_int(items, k) == d->days;
      return false;
    case TypeId::Timestamp:
      if (auto* t = std::get_if<Timestamp>(&v)) return item_as_int(items, k) == t->micros;
      return false;
    case TypeId::Boolean:
      if (auto* b = std::get_if<bool>(&v)) return items.value<bool>(k) == *b;
      return false;
    default:
      if (auto* s = std::get_if<std::string>(&v)) return items.value<std::string_view>(k) == *s;
      return false;
  }
}

}  // namespace ember
