// Struct and map keys below the operators: encoded keys equal exactly for equal values (sliced
// columns included) and decode back to them; rows compare field by field, a null field after
// every value, each checked against a comparison written here on Values.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "exec/relational/key_encoder.h"
#include "exec/relational/row_order.h"

namespace ember {
namespace {

DataType key_type() {
  return struct_({{"a", int64()}, {"b", utf8()}, {"m", map(utf8(), int64())}});
}

/// A struct key from a small space, so that equal keys recur; nulls at every level.
Value key_value(std::mt19937& rng) {
  if (rng() % 8 == 0) return Value{};
  Struct s;
  s.fields.emplace_back("a", rng() % 4 == 0 ? Value{} : Value{int64_t(rng() % 3)});
  s.fields.emplace_back("b", rng() % 5 == 0 ? Value{} : Value{std::string(rng() % 2, 'x')});
  List entries{{}, map(utf8(), int64()).element()};
  if (rng() % 2) {
    Struct e;
    e.fields = {{"key", Value{std::string("k")}},
                {"value", rng() % 3 == 0 ? Value{} : Value{int64_t(1)}}};
    entries.items.emplace_back(e);
  }
  s.fields.emplace_back("m", rng() % 6 == 0 ? Value{} : Value{entries});
  return Value{s};
}

/// Nulls after values, structs field by field, lists item by item then shorter first.
int compare_values(const Value& x, const Value& y) {
  const bool xn = std::holds_alternative<std::monostate>(x);
  const bool yn = std::holds_alternative<std::monostate>(y);
  if (xn || yn) return xn == yn ? 0 : (xn ? 1 : -1);
  if (const auto* s = std::get_if<Struct>(&x)) {
    for (size_t f = 0; f < s->fields.size(); ++f)
      if (const int c = compare_values(s->fields[f].second, std::get<Struct>(y).fields[f].second))
        return c;
    return 0;
  }
  if (const auto* l = std::get_if<List>(&x)) {
    const List& r = std::get<List>(y);
    for (size_t i = 0; i < l->items.size() && i < r.items.size(); ++i)
      if (const int c = compare_values(l->items[i], r.items[i])) return c;
    return l->items.size() < r.items.size() ? -1 : (l->items.size() > r.items.size() ? 1 : 0);
  }
  return x < y ? -1 : (y < x ? 1 : 0);
}

struct Keys {
  std::vector<Value> values;
  Column column;
};

/// 300 random keys built into a column, then sliced at an odd offset (so children are read at
/// offset()+i, not i).
Keys sliced_keys() {
  std::mt19937 rng(5);
  ColumnBuilder b(key_type());
  std::vector<Value> all;
  for (int i = 0; i < 307; ++i) {
    all.push_back(key_value(rng));
    b.append_value(all.back());
  }
  return {std::vector<Value>(all.begin() + 7, all.end()), b.finish().slice(7, 300)};
}

TEST(NestedKeys, EqualStructsEncodeEqualAndDecodeBack) {
  const Keys k = sliced_keys();
  EncodedKeys enc;
  encode_keys({k.column}, k.column.size(), enc);
  std::vector<std::string_view> rows;
  for (int64_t i = 0; i < k.column.size(); ++i) rows.push_back(enc.row(i));
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(enc.any_null[i] != 0, std::holds_alternative<std::monostate>(k.values[i])) << i;
    for (size_t j = 0; j < rows.size(); ++j)
      ASSERT_EQ(rows[i] == rows[j], k.values[i] == k.values[j]) << i << " vs " << j;
  }
  const Column back = decode_keys(rows, {key_type()})[0];
  for (int64_t i = 0; i < back.size(); ++i) ASSERT_EQ(back.get(i), k.values[size_t(i)]) << i;
}

TEST(NestedKeys, StructsSortFieldByFieldWithNullFieldsLast) {
  const Keys k = sliced_keys();
  for (const bool descending : {false, true}) {
    for (const bool nulls_first : {false, true}) {
      const std::vector<KeyOrder> order{{descending, nulls_first}};
      std::vector<int64_t> want(k.values.size());
      std::iota(want.begin(), want.end(), int64_t{0});
      std::stable_sort(want.begin(), want.end(), [&](int64_t x, int64_t y) {
        const Value& a = k.values[size_t(x)];
        const Value& b = k.values[size_t(y)];
        const bool an = std::holds_alternative<std::monostate>(a);
        const bool bn = std::holds_alternative<std::monostate>(b);
        if (an || bn) return an != bn && an == nulls_first;
        const int c = compare_values(a, b);
        return descending ? c > 0 : c < 0;
      });
      EXPECT_EQ(sorted_rows({k.column}, k.column.size(), order, -1), want)
          << "descending " << descending << ", nulls first " << nulls_first;
    }
  }
}

}  // namespace
}  // namespace ember
