// Group-by, join, sort and distinct keyed on every type (int32, float32, timestamps, binary,
// lists, fixed-size lists, dates, structs and maps, with nulls at every level), checked against
// answers computed
// here from the same values; and the same operators past a tiny memory budget, spilling such
// columns.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "ember/ember.h"
#include "exec/relational/spill_file.h"

using namespace ember;

namespace {

const DataType kTypes[] = {
    int32(),
    float32(),
    timestamp_us(),
    binary(),
    list(int64()),
    fixed_size_list(float32(), 2),
    date32(),
    struct_({{"n", int64()}, {"s", utf8()}, {"inner", struct_({{"x", int64()}})}}),
    map(utf8(), int64())};
constexpr int kNumTypes = static_cast<int>(std::size(kTypes));

/// Key number v (0 <= v < 24) as a value of `type`; equal v give equal values, different v
/// different ones (lists hold a null item or are empty for some v).
Value key_value(const DataType& type, int64_t v) {
  switch (type.id()) {
    case TypeId::Int32:
      return Value(int64_t{v * 7 - 50});
    case TypeId::Float32:
      return Value(static_cast<float>(v) / 2.0f - 3.0f);
    case TypeId::Timestamp:
      return Value(Timestamp{v * 3'600'000'000 - 7});
    case TypeId::Date32:
      return Value(Date{int32_t(v * 400 - 4000)});
    case TypeId::Binary:
      return Value(
          std::vector<uint8_t>{static_cast<uint8_t>(v * 11), 0, static_cast<uint8_t>(255 - v)});
    case TypeId::List: {
      if (v == 0) return Value(List{{}, int64()});
      List l{{int64_t{v / 2}}, int64()};
      l.items.push_back(v % 2 == 0 ? Value() : Value(v));
      if (v > 12) l.items.push_back(Value(int64_t{-v}));
      return Value(l);
    }
    case TypeId::Struct: {  // a null field or a null inner struct for some v
      Struct inner, s;
      inner.fields = {{"x", Value(v)}};
      s.fields = {{"n", v % 5 == 1 ? Value() : Value(int64_t{v / 3})},
                  {"s", Value(std::string(size_t(v % 3), 'a'))},
                  {"inner", v % 4 == 0 ? Value() : Value(inner)}};
      return Value(s);
    }
    case TypeId::Map: {  // empty for 0; a null value for odd v
      List entries{{}, type.element()};
      auto entry = [](std::string key, Value value) {
        Struct e;
        e.fields = {{"key", Value(std::move(key))}, {"value", std::move(value)}};
        return Value(e);
      };
      if (v > 0) entries.items.push_back(entry("a", Value(v)));
      if (v % 2 == 1) entries.items.push_back(entry("b", Value()));
      return Value(entries);
    }
    default:
      return Value(List{{static_cast<float>(v % 4), static_cast<float>(v / 4)}, float32()});
  }
}

/// The values every operator sees: one key column `k` (about 1 in 9 null) and a row number.
struct Keyed {
  std::vector<Value> keys;
  Table table;
};

Keyed keyed_table(const DataType& type, int64_t rows, uint32_t seed) {
  std::mt19937_64 rng(seed);
  Keyed out;
  ColumnBuilder k(type, rows);
  std::vector<int64_t> id;
  for (int64_t i = 0; i < rows; ++i) {
    const uint64_t r = rng();
    out.keys.push_back(r % 9 == 0 ? Value() : key_value(type, static_cast<int64_t>((r >> 8) % 24)));
    k.append_value(out.keys.back());
    id.push_back(i);
  }
  out.table = Table::from_columns({{"k", k.finish()}, {"id", Column::from(std::move(id))}});
  return out;
}

/// The order ember sorts in: nulls last; lists (and maps, entry by entry as stored) item by
/// item, a null item after every value, then the shorter list first; structs field by field, a
/// null field after every value.
bool value_less(const Value& a, const Value& b) {
  const bool an = std::holds_alternative<std::monostate>(a);
  const bool bn = std::holds_alternative<std::monostate>(b);
  if (an || bn) return !an && bn;
  if (const auto* la = std::get_if<List>(&a)) {
    const auto& lb = std::get<List>(b);
    for (size_t i = 0; i < la->items.size() && i < lb.items.size(); ++i) {
      if (value_less(la->items[i], lb.items[i])) return true;
      if (value_less(lb.items[i], la->items[i])) return false;
    }
    return la->items.size() < lb.items.size();
  }
  if (const auto* sa = std::get_if<Struct>(&a)) {
    const auto& sb = std::get<Struct>(b);
    for (size_t i = 0; i < sa->fields.size(); ++i) {
      if (value_less(sa->fields[i].second, sb.fields[i].second)) return true;
      if (value_less(sb.fields[i].second, sa->fields[i].second)) return false;
    }
    return false;
  }
  return a < b;
}

std::string name_of(const testing::TestParamInfo<std::tuple<int, int>>& info) {
  std::string type = kTypes[std::get<0>(info.param)].to_string();
  type.erase(std::remove_if(type.begin(), type.end(), [](char c) { return !std::isalnum(c); }),
             type.end());
  return type + "_" + std::to_string(std::get<1>(info.param)) + "threads";
}

class TypedKeys : public testing::TestWithParam<std::tuple<int, int>> {
 protected:
  DataType type() const { return kTypes[std::get<0>(GetParam())]; }
  RunOptions run(int64_t budget = 0) const {
    RunOptions o;
    o.threads = std::get<1>(GetParam());
    o.memory_budget_bytes = budget;
    return o;
  }
};

}  // namespace

TEST_P(TypedKeys, GroupByCountsEachKeyOnceInKeyOrder) {
  const Keyed in = keyed_table(type(), 3000, 11);
  std::map<Value, int64_t> want;
  for (const Value& k : in.keys) ++want[k];
  for (const int64_t budget : {int64_t{0}, int64_t{1024}}) {
    const Table got = from_table(in.table, 4)
                          .group_by({col("k")})
                          .agg({col("id").count().alias("n")})
                          .collect(run(budget));
    ASSERT_EQ(got.num_rows(), static_cast<int64_t>(want.size())) << "budget " << budget;
    const Column k = got.column("k"), n = got.column("n");
    for (int64_t r = 0; r < got.num_rows(); ++r) {
      EXPECT_EQ(n.value<int64_t>(r), want[k.get(r)]) << to_string(k.get(r));
      if (r > 0) {
        EXPECT_TRUE(value_less(k.get(r - 1), k.get(r))) << "group rows not in key order";
      }
    }
  }
}

TEST_P(TypedKeys, JoinMatchesEqualKeysAndNeverNulls) {
  const Keyed left = keyed_table(type(), 2000, 12);
  // The right side: every even key number once, tagged with it.
  ColumnBuilder rk(type());
  std::vector<int64_t> tag;
  std::map<Value, int64_t> tag_of;
  for (int64_t v = 0; v < 24; v += 2) {
    rk.append_value(key_value(type(), v));
    tag.push_back(v);
    tag_of[key_value(type(), v)] = v;
  }
  const DataFrame right = from_table(
      Table::from_columns({{"k", rk.finish()}, {"tag", Column::from(std::move(tag))}}), 2);
  int64_t matching = 0;
  for (const Value& k : left.keys)
    matching += tag_of.count(k) && !std::holds_alternative<std::monostate>(k);

  const Table inner = from_table(left.table, 3).join(right, {"k"}).collect(run());
  ASSERT_EQ(inner.num_rows(), matching);
  const Column id = inner.column("id"), t = inner.column("tag");
  for (int64_t r = 0; r < inner.num_rows(); ++r)
    EXPECT_EQ(t.value<int64_t>(r), tag_of.at(left.keys[static_cast<size_t>(id.value<int64_t>(r))]));
  const Table anti = from_table(left.table, 3).join(right, {"k"}, JoinType::Anti).collect(run());
  EXPECT_EQ(anti.num_rows(), left.table.num_rows() - matching);
}

TEST_P(TypedKeys, SortIsStableInTheDocumentedOrder) {
  const Keyed in = keyed_table(type(), 3000, 13);
  std::vector<int64_t> want(in.keys.size());
  for (size_t i = 0; i < want.size(); ++i) want[i] = static_cast<int64_t>(i);
  std::stable_sort(want.begin(), want.end(), [&](int64_t a, int64_t b) {
    return value_less(in.keys[static_cast<size_t>(a)], in.keys[static_cast<size_t>(b)]);
  });
  for (const int64_t budget : {int64_t{0}, int64_t{16 * 1024}}) {
    const int64_t made = SpillFile::files_created();
    const Table got = from_table(in.table, 4).sort({SortKey{col("k")}}).collect(run(budget));
    if (budget > 0) {
      EXPECT_GT(SpillFile::files_created(), made) << "the budget did not spill";
    }
    ASSERT_EQ(got.num_rows(), static_cast<int64_t>(want.size()));
    const Column id = got.column("id"), k = got.column("k");
    for (int64_t r = 0; r < got.num_rows(); ++r) {
      ASSERT_EQ(id.value<int64_t>(r), want[static_cast<size_t>(r)]) << "budget " << budget;
      ASSERT_EQ(k.get(r), in.keys[static_cast<size_t>(want[static_cast<size_t>(r)])]);
    }
  }
}

TEST_P(TypedKeys, DistinctKeepsOneRowPerValue) {
  const Keyed in = keyed_table(type(), 2000, 14);
  const std::set<Value> want(in.keys.begin(), in.keys.end());
  const Table got = from_table(in.table, 4).select({col("k")}).distinct().collect(run());
  ASSERT_EQ(got.num_rows(), static_cast<int64_t>(want.size()));
  std::set<Value> seen;
  for (int64_t r = 0; r < got.num_rows(); ++r) seen.insert(got.column("k").get(r));
  EXPECT_EQ(seen, want);
}

INSTANTIATE_TEST_SUITE_P(EveryType, TypedKeys,
                         testing::Combine(testing::Range(0, kNumTypes), testing::Values(1, 2)),
                         name_of);

TEST(TypedKeys, FloatZerosAreOneKeyAndNaNsAnother) {
  const Table t = Table::from_columns(
      {{"k", Column::from(std::vector<std::optional<float>>{0.0f, -0.0f, std::nanf(""),
                                                            -std::nanf(""), 1.5f, std::nullopt})}});
  const Table got =
      from_table(t, 2).group_by({col("k")}).agg({col("k").count().alias("n")}).collect();
  ASSERT_EQ(got.num_rows(), 4);  // 0, 1.5, NaN, null
  std::map<std::string, int64_t> n;
  for (int64_t r = 0; r < got.num_rows(); ++r)
    n[to_string(got.column("k").get(r))] = got.column("n").value<int64_t>(r);
  EXPECT_EQ(n["0"], 2);
  EXPECT_EQ(n["nan"], 2);
  EXPECT_EQ(n["null"], 0);  // count() skips nulls; the null key is still one group
}
