// Conditional kernels: a fixed-width result is gathered with one branch-free select per row;
// other types (text, bool, lists) go through a ColumnBuilder.
#include "expr/conditional_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string_view>
#include <unordered_set>

#include "core/bitmap.h"
#include "core/buffer_access.h"
#include "core/short_copy.h"
#include "ember/error.h"
#include "expr/kernel_input.h"

namespace ember {

namespace {

// For each row the index of the column it takes (-1: none, the row is null).
using Picks = std::vector<int32_t>;

// The row of `c` that output row i reads: a one-row column (a literal) is broadcast.
inline int64_t row_of(const Column& c, int64_t i) { return c.size() == 1 ? 0 : i; }

template <class T>
Column gather_fixed(const std::vector<const Column*>& cols, const Picks& picks, DataType type) {
  const int64_t n = int64_t(picks.size());
  auto out = detail::BufferAccess::allocate_uninitialized(n * int64_t(sizeof(T)));
  T* d = reinterpret_cast<T*>(detail::BufferAccess::mutable_data(*out));
  std::vector<const T*> src;
  for (const Column* c : cols) src.push_back(c->values<T>());
  std::vector<int64_t> step;
  for (const Column* c : cols) step.push_back(c->size() == 1 ? 0 : 1);
  for (int64_t i = 0; i < n; ++i) {
    const int32_t k = picks[size_t(i)];
    d[i] = k < 0 ? T{} : src[size_t(k)][i * step[size_t(k)]];
  }
  const int32_t* p = picks.data();
  auto valid = kernel::bits_where(n, [p](int64_t i) { return p[i] >= 0; });
  return Column::from_buffers(std::move(type), n, -1, std::move(valid), std::move(out));
}

// Text and bytes: the result's size is known from the picks, so offsets and characters are
// written once, straight into the column's buffers.
Column gather_text(const std::vector<const Column*>& cols, const Picks& picks, DataType type) {
  const auto n = int64_t(picks.size());
  std::vector<kernel::Utf8Read> reads;
  std::vector<int64_t> step;
  for (const Column* c : cols) {
    reads.push_back({c->offsets(), c->chars()});
    step.push_back(c->size() == 1 ? 0 : 1);
  }
  auto offsets = detail::BufferAccess::allocate_uninitialized((n + 1) * int64_t(sizeof(int32_t)));
  auto* o = reinterpret_cast<int32_t*>(detail::BufferAccess::mutable_data(*offsets));
  int64_t total = 0;
  o[0] = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int32_t k = picks[size_t(i)];
    if (k >= 0) {
      const kernel::Utf8Read& r = reads[size_t(k)];
      const int64_t row = i * step[size_t(k)];
      total += r.o[row + 1] - r.o[row];
      if (total > std::numeric_limits<int32_t>::max()) {
        throw InvalidArgument("a text result holds more than 2 GiB in one batch");
      }
    }
    o[i + 1] = int32_t(total);
  }
  auto chars = detail::BufferAccess::allocate_uninitialized(total);
  char* c = reinterpret_cast<char*>(detail::BufferAccess::mutable_data(*chars));
  for (int64_t i = 0; i < n; ++i) {
    const int32_t k = picks[size_t(i)];
    if (k < 0) continue;
    const kernel::Utf8Read& r = reads[size_t(k)];
    const int64_t row = i * step[size_t(k)];
    copy_short(c + o[i], r.c + r.o[row], size_t(o[i + 1] - o[i]));
  }
  const int32_t* p = picks.data();
  auto valid = kernel::bits_where(n, [p](int64_t i) { return p[i] >= 0; });
  return Column::from_buffers(std::move(type), n, -1, std::move(valid), std::move(offsets),
                              std::move(chars));
}

// Row i of cols[picks[i]] (null where picks[i] < 0).
Column gather(const std::vector<const Column*>& cols, const Picks& picks, const DataType& type) {
  switch (type.byte_width()) {
    case 8:
      return gather_fixed<int64_t>(cols, picks, type);
    case 4:
      return gather_fixed<int32_t>(cols, picks, type);
    default:
      break;
  }
  if (type.id() == TypeId::Utf8 || type.id() == TypeId::Binary)
    return gather_text(cols, picks, type);
  ColumnBuilder b(type, int64_t(picks.size()));
  for (size_t i = 0; i < picks.size(); ++i) {
    if (picks[i] < 0) {
      b.append_null();
    } else {
      const Column& c = *cols[size_t(picks[i])];
      b.append_from(c, row_of(c, int64_t(i)));
    }
  }
  return b.finish();
}

bool numeric(TypeId t) {
  return t == TypeId::Int64 || t == TypeId::Float64 || t == TypeId::Int32 || t == TypeId::Float32;
}

double number_at(const Column& c, int64_t i) {
  switch (c.type().id()) {
    case TypeId::Int64:
      return double(c.values<int64_t>()[i]);
    case TypeId::Int32:
      return c.values<int32_t>()[i];
    case TypeId::Float32:
      return c.values<float>()[i];
    default:
      return c.values<double>()[i];
  }
}

double number_of(const Value& v) {
  if (auto* i = std::get_if<int64_t>(&v)) return double(*i);
  if (auto* f = std::get_if<float>(&v)) return *f;
  return std::get<double>(v);
}

// The integers among `values`, exactly (a double that is not an integer matches nothing);
// for timestamps, their microseconds.
std::unordered_set<int64_t> int_set(const std::vector<Value>& values, bool timestamps) {
  std::unordered_set<int64_t> set;
  for (const Value& v : values) {
    if (timestamps) {
      if (auto* ts = std::get_if<Timestamp>(&v)) set.insert(ts->micros);
    } else if (auto* i = std::get_if<int64_t>(&v)) {
      set.insert(*i);
    } else if (numeric(type_of(v).id())) {
      const double d = number_of(v);
      if (std::trunc(d) == d && std::abs(d) < 9.2e18) set.insert(int64_t(d));
    }
  }
  return set;
}

// Membership of integers or timestamps: exact over int64.
Column int_membership(const Column& c, const std::unordered_set<int64_t>& set) {
  const bool wide = c.type().id() == TypeId::Int64 || c.type().id() == TypeId::Timestamp;
  const int64_t* p64 = wide ? c.values<int64_t>() : nullptr;
  const int32_t* p32 = wide ? nullptr : c.values<int32_t>();
  auto bits = kernel::bits_where(
      c.size(), [&](int64_t i) { return set.count(wide ? p64[i] : int64_t(p32[i])) > 0; });
  return Column::from_buffers(boolean(), c.size(), -1, same_validity(c), bits);
}

}  // namespace

Column choose(const std::vector<Column>& conds, const std::vector<Column>& values, int64_t n) {
  // Each row takes the first condition that holds (true and not null), else the last value.
  // Conditions are applied from the last to the first, each overwriting the rows it holds on,
  // so the first that holds wins: one plain loop over the rows per condition.
  Picks picks(static_cast<size_t>(n), int32_t(conds.size()));
  int32_t* p = picks.data();
  for (size_t k = conds.size(); k-- > 0;) {
    const Column& c = conds[k];
    if (c.type().id() == TypeId::Null) continue;
    if (c.size() == 1) {
      if (!c.is_null(0) && c.value<bool>(0)) std::fill(picks.begin(), picks.end(), int32_t(k));
      continue;
    }
    const auto holds = bitmap::and_of(c.bool_bits(), c.offset(), c.validity_bits(), c.offset(), n);
    const uint8_t* h = holds->data();
    const auto kk = int32_t(k);
    for (int64_t i = 0; i < n; ++i) p[i] = ((h[i >> 3] >> (i & 7)) & 1) ? kk : p[i];
  }
  for (size_t k = 0; k < values.size(); ++k) {
    const Column& v = values[k];
    if (v.null_count() == 0) continue;
    const auto kk = int32_t(k);
    for (int64_t i = 0; i < n; ++i) {
      if (p[i] == kk && v.is_null(row_of(v, i))) p[i] = -1;
    }
  }
  std::vector<const Column*> cols;
  for (const Column& v : values) cols.push_back(&v);
  return gather(cols, picks, values.back().type());
}

Column first_non_null(const std::vector<Column>& values, int64_t n) {
  Picks picks(static_cast<size_t>(n), -1);
  std::vector<const Column*> cols;
  for (const Column& c : values) cols.push_back(&c);
  for (int64_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < cols.size(); ++k) {
      if (!cols[k]->is_null(i)) {
        picks[size_t(i)] = int32_t(k);
        break;
      }
    }
  }
  return gather(cols, picks, values[0].type());
}

Column membership(const Column& c, const std::vector<Value>& values) {
  const TypeId t = c.type().id();
  if (t == TypeId::Date32) {
    std::unordered_set<int64_t> days;
    for (const Value& v : values) {
      if (auto* d = std::get_if<Date>(&v)) days.insert(d->days);
    }
    return int_membership(c, days);
  }
  if (t == TypeId::Int64 || t == TypeId::Int32 || t == TypeId::Timestamp) {
    return int_membership(c, int_set(values, t == TypeId::Timestamp));
  }
  std::function<bool(int64_t)> hit;
  std::unordered_set<double> numbers;
  std::unordered_set<std::string_view> texts;
  bool bools[2] = {false, false};
  for (const Value& v : values) {
    if (std::holds_alternative<std::monostate>(v)) continue;
    if (numeric(type_of(v).id())) numbers.insert(number_of(v));
    if (auto* s = std::get_if<std::string>(&v)) texts.insert(*s);
    if (auto* b = std::get_if<bool>(&v)) bools[*b] = true;
  }
  if (numeric(t)) {
    hit = [&](int64_t i) { return numbers.count(number_at(c, i)) > 0; };
  } else if (t == TypeId::Utf8) {
    const kernel::Utf8Read read{c.offsets(), c.chars()};
    hit = [&, read](int64_t i) { return texts.count(read(i)) > 0; };
  } else {
    hit = [&](int64_t i) { return bools[c.value<bool>(i)]; };
  }
  auto bits = kernel::bits_where(c.size(), hit);
  return Column::from_buffers(boolean(), c.size(), -1, same_validity(c), bits);
}

}  // namespace ember
