// The fixed-width key layout (keys written column by column at a constant stride) against the
// general one: the same bytes for every row, nulls, NaN and -0.0 included, and a GroupTable fed
// either way finds the same groups with the same aggregates, which a map-based count confirms.
#include "exec/relational/group_table.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "exec/relational/key_encoder.h"

using namespace ember;

namespace {

/// A key column of kind 0..5 (int64, float64, int32, float32, bool, timestamp) with few
/// distinct values and about one null in `null_every` rows (0: none).
Column key_column(int kind, int64_t n, int null_every, std::mt19937_64& rng) {
  const double specials[] = {std::nan(""), -0.0, 0.0, 1.5, -2.25};
  auto null_here = [&] { return null_every > 0 && rng() % static_cast<uint64_t>(null_every) == 0; };
  ColumnBuilder b(kind == 0   ? int64()
                  : kind == 1 ? float64()
                  : kind == 2 ? int32()
                  : kind == 3 ? float32()
                  : kind == 4 ? boolean()
                              : timestamp_us(),
                  n);
  for (int64_t i = 0; i < n; ++i) {
    if (null_here()) {
      b.append_null();
      continue;
    }
    const uint64_t r = rng();
    switch (kind) {
      case 0:
        b.append(static_cast<int64_t>(r % 5) - 2);
        break;
      case 1:
        b.append(specials[r % 5]);
        break;
      case 2:
        b.append(static_cast<int32_t>(r % 4));
        break;
      case 3:
        b.append(static_cast<float>(specials[r % 5]));
        break;
      case 4:
        b.append(r % 2 == 0);
        break;
      default:
        b.append(Timestamp{static_cast<int64_t>(r % 3) * 1000});
        break;
    }
  }
  return b.finish();
}

std::vector<GroupedAggregate> aggregates() {
  std::vector<GroupedAggregate> a;
  a.emplace_back(AggFunc::Sum, int64(), int64(), "v.sum()");
  a.emplace_back(AggFunc::Count, int64(), int64(), "v.count()");
  a.emplace_back(AggFunc::Max, int64(), int64(), "v.max()");
  a.emplace_back(AggFunc::First, int64(), int64(), "v.first()");
  return a;
}

/// Each group's key bytes and its aggregates, in first-seen order.
std::vector<std::pair<std::string, std::vector<Value>>> groups_of(const GroupTable& t) {
  std::vector<uint32_t> all(t.size());
  for (size_t g = 0; g < all.size(); ++g) all[g] = static_cast<uint32_t>(g);
  std::vector<Column> finished;
  for (const GroupedAggregate& a : t.aggregates()) finished.push_back(a.finish(all));
  std::vector<std::pair<std::string, std::vector<Value>>> out;
  for (size_t g = 0; g < t.size(); ++g) {
    std::vector<Value> values;
    for (const Column& c : finished) values.push_back(c.get(static_cast<int64_t>(g)));
    out.emplace_back(std::string(t.key(g)), std::move(values));
  }
  return out;
}

}  // namespace

TEST(KeyLayout, FixedWidthKeysEncodeAsTheGeneralPathDoes) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 48; ++trial) {
    const int64_t n = 300;
    std::vector<Column> keys;
    std::vector<DataType> types;
    for (int k = 0; k < 1 + trial % 3; ++k) {
      keys.push_back(key_column(static_cast<int>(rng() % 6), n, trial % 2 == 0 ? 0 : 4, rng));
      types.push_back(keys.back().type());
    }
    EncodedKeys fixed, general;
    encode_keys(keys, n, fixed);
    encode_keys(keys, n, general, KeyLayout::Variable);
    ASSERT_GT(fixed.width, 0);
    EXPECT_EQ(fixed.width, fixed_key_width(types));
    EXPECT_EQ(general.width, 0);
    ASSERT_EQ(fixed.rows(), n);
    ASSERT_EQ(general.rows(), n);
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(fixed.row(i), general.row(i)) << "trial " << trial << " row " << i;
      EXPECT_EQ(fixed.any_null[static_cast<size_t>(i)], general.any_null[static_cast<size_t>(i)]);
      EXPECT_EQ(hash_key(fixed.row(i)), hash_key(general.row(i)));
    }
    // Decoding the fixed rows gives the columns back (NaN and -0.0 as their canonical form).
    std::vector<std::string_view> rows;
    for (int64_t i = 0; i < n; ++i) rows.push_back(fixed.row(i));
    const std::vector<Column> back = decode_keys(rows, types);
    EncodedKeys again;
    encode_keys(back, n, again);
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(again.row(i), fixed.row(i));
      for (size_t k = 0; k < keys.size(); ++k) EXPECT_EQ(back[k].is_null(i), keys[k].is_null(i));
    }
  }
}

TEST(KeyLayout, NullKeysAreOneValueAndDifferFromZero) {
  ColumnBuilder b(int64(), 4);
  b.append_null();
  b.append(int64_t{0});
  b.append_null();
  b.append(int64_t{0});
  const Column c = b.finish();
  EncodedKeys enc;
  encode_keys({c}, 4, enc);
  ASSERT_EQ(enc.width, 9);
  EXPECT_EQ(enc.row(0), enc.row(2));
  EXPECT_EQ(enc.row(1), enc.row(3));
  EXPECT_NE(enc.row(0), enc.row(1));
  EXPECT_EQ(enc.any_null, (std::vector<uint8_t>{1, 0, 1, 0}));
}

TEST(KeyLayout, VariableWidthKeysKeepTheGeneralPath) {
  const Column s = Column::from(std::vector<std::string>{"a", "bb", "a"});
  const Column i = Column::from(std::vector<int64_t>{1, 2, 1});
  EncodedKeys enc;
  encode_keys({i, s}, 3, enc);
  EXPECT_EQ(enc.width, 0);
  EXPECT_EQ(enc.row(0), enc.row(2));
  EXPECT_NE(enc.row(0), enc.row(1));
  EXPECT_EQ(fixed_key_width({int64(), utf8()}), 0);
  EXPECT_EQ(fixed_key_width({}), 0);
}

TEST(GroupTable, FixedLayoutGroupsAsTheGeneralPathAndAMapDo) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 24; ++trial) {
    GroupTable fast(aggregates()), general(aggregates());
    std::map<std::string, std::pair<int64_t, int64_t>> expected;  ///< key -> (rows, sum)
    for (int batch = 0; batch < 3; ++batch) {
      const int64_t n = 500;
      std::vector<Column> keys;
      for (int k = 0; k < 1 + trial % 3; ++k)
        keys.push_back(key_column(static_cast<int>(rng() % 6), n, 3, rng));
      std::vector<int64_t> v;
      for (int64_t i = 0; i < n; ++i) v.push_back(static_cast<int64_t>(rng() % 1000));
      const Column values = Column::from(v);
      const std::vector<Column> inputs(4, values);
      EncodedKeys fixed_enc, general_enc;
      encode_keys(keys, n, fixed_enc);
      encode_keys(keys, n, general_enc, KeyLayout::Variable);
      ASSERT_GT(fixed_enc.width, 0);
      fast.add(fixed_enc, inputs);
      general.add(general_enc, inputs);
      for (int64_t i = 0; i < n; ++i) {
        auto& e = expected[std::string(general_enc.row(i))];
        ++e.first;
        e.second += v[static_cast<size_t>(i)];
      }
    }
    ASSERT_EQ(fast.size(), expected.size());
    EXPECT_EQ(groups_of(fast), groups_of(general));
    for (const auto& [key, values] : groups_of(fast)) {
      const auto& e = expected.at(key);
      EXPECT_EQ(std::get<int64_t>(values[0]), e.second);
      EXPECT_EQ(std::get<int64_t>(values[1]), e.first);
    }
  }
}

TEST(GroupTable, MergingFixedLayoutTablesMatchesOneTable) {
  std::mt19937_64 rng(3);
  std::vector<Column> keys = {key_column(0, 800, 5, rng), key_column(1, 800, 5, rng)};
  std::vector<int64_t> v;
  for (int64_t i = 0; i < 800; ++i) v.push_back(i);
  const Column values = Column::from(v);
  EncodedKeys all;
  encode_keys(keys, 800, all);
  GroupTable whole(aggregates());
  whole.add(all, std::vector<Column>(4, values));
  // The same rows as two halves, each in its own table, merged in order.
  GroupTable first(aggregates()), second(aggregates());
  for (int half = 0; half < 2; ++half) {
    std::vector<Column> part_keys;
    for (const Column& k : keys) part_keys.push_back(k.slice(half * 400, 400));
    EncodedKeys enc;
    encode_keys(part_keys, 400, enc);
    ASSERT_GT(enc.width, 0);
    (half == 0 ? first : second).add(enc, std::vector<Column>(4, values.slice(half * 400, 400)));
  }
  first.merge(second, [](uint64_t) { return true; });
  EXPECT_EQ(groups_of(first), groups_of(whole));
}

TEST(GroupTable, KeysOfDifferentWidthsInOneTableStayApart) {
  // Not what a group-by does (its keys have one type list), but the table must not mistake a
  // 9-byte key for the start of an 18-byte one.
  const Column a = Column::from(std::vector<int64_t>{1, 2, 1});
  const Column b = Column::from(std::vector<int64_t>{0, 0, 0});
  const std::vector<Column> inputs(4, a);
  GroupTable t(aggregates());
  EncodedKeys one, two;
  encode_keys({a}, 3, one);
  encode_keys({a, b}, 3, two);
  t.add(one, inputs);
  t.add(two, inputs);
  t.add(one, inputs);
  ASSERT_EQ(t.size(), 4u);                                     // (1), (2), (1, 0), (2, 0)
  EXPECT_EQ(std::get<int64_t>(groups_of(t)[0].second[1]), 4);  // key (1): rows 0, 2 twice
  EXPECT_EQ(std::get<int64_t>(groups_of(t)[2].second[1]), 2);  // key (1, 0)
}

TEST(GroupTable, NineByteKeysByNumberMatchTheGeneralPath) {
  // One int64 key (small range, then numbers outside the first batch's window, negatives,
  // extremes, nulls), a first batch of too wide a range (no direct lookup), and three keys
  // whose encoding is also 9 bytes (bool, bool, int32): fed as fixed and as variable rows.
  const int64_t big = std::numeric_limits<int64_t>::max();
  const std::vector<std::vector<std::optional<int64_t>>> first_batches = {
      {3, 4, std::nullopt, 3, 10, 4}, {-big - 1, 0, big, 7}};
  std::mt19937_64 rng(21);
  for (const auto& first : first_batches) {
    GroupTable fast(aggregates()), general(aggregates());
    std::vector<std::vector<std::optional<int64_t>>> batches = {first};
    std::vector<std::optional<int64_t>> later;
    for (int i = 0; i < 2000; ++i) {
      const uint64_t r = rng() % 10;
      later.push_back(r == 0   ? std::nullopt
                      : r == 1 ? std::optional<int64_t>(static_cast<int64_t>(rng() % 5000) - 2500)
                      : r == 2 ? std::optional<int64_t>(big)
                               : std::optional<int64_t>(static_cast<int64_t>(rng() % 40)));
    }
    batches.push_back(later);
    for (const auto& b : batches) {
      const Column key = Column::from(b);
      const auto n = static_cast<int64_t>(b.size());
      std::vector<int64_t> v(b.size());
      for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>(i);
      const std::vector<Column> inputs(4, Column::from(v));
      EncodedKeys fixed, variable;
      encode_keys({key}, n, fixed);
      encode_keys({key}, n, variable, KeyLayout::Variable);
      ASSERT_EQ(fixed.width, 9);
      fast.add(fixed, inputs);
      general.add(variable, inputs);
    }
    EXPECT_EQ(groups_of(fast), groups_of(general));
  }
  GroupTable fast(aggregates()), general(aggregates());
  for (int batch = 0; batch < 3; ++batch) {
    const std::vector<Column> keys = {key_column(4, 700, 3, rng), key_column(4, 700, 3, rng),
                                      key_column(2, 700, 3, rng)};
    const std::vector<Column> inputs(4, Column::from(std::vector<int64_t>(700, 1)));
    EncodedKeys fixed, variable;
    encode_keys(keys, 700, fixed);
    encode_keys(keys, 700, variable, KeyLayout::Variable);
    ASSERT_EQ(fixed.width, 9);
    fast.add(fixed, inputs);
    general.add(variable, inputs);
  }
  EXPECT_EQ(groups_of(fast), groups_of(general));
}
