// Column tests: every type with and without nulls, slices at odd bit offsets, concat, filter,
// raw buffers and the builder, each checked against a std::vector<Value> reference.
#include "ember/column.h"

#include <gtest/gtest.h>

#include <random>

#include "core/buffer_access.h"

namespace ember {
namespace {

using Rows = std::vector<Value>;

Rows rows_of(const Column& c) {
  Rows out;
  for (int64_t i = 0; i < c.size(); ++i) out.push_back(c.get(i));
  return out;
}

// Random rows of `type`; nulls with probability `null_rate`.
Rows random_rows(DataType type, int64_t n, double null_rate, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  Rows out;
  for (int64_t i = 0; i < n; ++i) {
    if (u(rng) < null_rate) {
      out.emplace_back();
      continue;
    }
    switch (type.id()) {
      case TypeId::Boolean:
        out.emplace_back(u(rng) < 0.5);
        break;
      case TypeId::Int64:
        out.emplace_back(int64_t(rng() % 2001) - 1000);
        break;
      case TypeId::Float64:
        out.emplace_back(u(rng) * 100 - 50);
        break;
      default:
        out.emplace_back(std::string(rng() % 7, char('a' + rng() % 26)));
        break;
    }
  }
  return out;
}

Column build(DataType type, const Rows& rows) {
  ColumnBuilder b(type);
  for (const Value& v : rows) b.append_value(v);
  return b.finish();
}

Rows sub(const Rows& r, int64_t off, int64_t len) {
  return Rows(r.begin() + off, r.begin() + off + len);
}

class ColumnTypeTest : public testing::TestWithParam<std::tuple<TypeId, double>> {
 protected:
  DataType type() const { return DataType(std::get<0>(GetParam())); }
  double null_rate() const { return std::get<1>(GetParam()); }
};

TEST_P(ColumnTypeTest, BuilderRoundTripsAndCountsNulls) {
  Rows ref = random_rows(type(), 1000, null_rate(), 1);
  Column c = build(type(), ref);
  EXPECT_EQ(c.type(), type());
  EXPECT_EQ(c.size(), 1000);
  EXPECT_EQ(rows_of(c), ref);
  int64_t nulls = 0;
  for (const Value& v : ref) nulls += v.index() == 0;
  EXPECT_EQ(c.null_count(), nulls);
  EXPECT_EQ(c.validity_bits() == nullptr, nulls == 0);
  for (int64_t i = 0; i < c.size(); ++i) EXPECT_EQ(c.is_null(i), ref[size_t(i)].index() == 0);
}

TEST_P(ColumnTypeTest, OddSlicesConcatToTheSameRows) {
  Rows ref = random_rows(type(), 777, null_rate(), 2);
  Column c = build(type(), ref);
  std::vector<Column> parts;
  Rows expected;
  // Cut points chosen to give bit offsets that are not multiples of 8 and empty pieces.
  const std::vector<int64_t> cuts = {0, 3, 3, 70, 133, 200, 517, 518, 777};
  for (size_t k = 0; k + 1 < cuts.size(); ++k) {
    Column s = c.slice(cuts[k], cuts[k + 1] - cuts[k]);
    EXPECT_EQ(rows_of(s), sub(ref, cuts[k], cuts[k + 1] - cuts[k]));
    parts.push_back(s);
  }
  Column joined = Column::concat(parts);
  EXPECT_EQ(joined.offset(), 0);
  EXPECT_EQ(rows_of(joined), ref);
  EXPECT_EQ(joined.null_count(), c.null_count());
  // Slices of slices, concatenated in a different order.
  Column a = c.slice(5, 600).slice(11, 301);
  Column b = c.slice(1, 50);
  Rows both = sub(ref, 16, 301);
  Rows rb = sub(ref, 1, 50);
  both.insert(both.end(), rb.begin(), rb.end());
  EXPECT_EQ(rows_of(Column::concat({a, b})), both);
}

TEST_P(ColumnTypeTest, ConsecutiveSlicesOfOneColumnConcatenateWithoutACopy) {
  Rows ref = random_rows(type(), 700, null_rate(), 5);
  Column c = build(type(), ref).slice(9, 650);
  Column joined = Column::concat({c.slice(0, 100), c.slice(100, 250), c.slice(350, 300)});
  EXPECT_EQ(rows_of(joined), sub(ref, 9, 650));
  EXPECT_EQ(joined.null_count(), c.null_count());
  // Flat columns whose slices all keep (or all drop) the bitmap share the buffers; the rest
  // are copied and still equal.
  if (!type().is_nested() && c.null_count() == 0) {
    EXPECT_EQ(joined.values_buffer(), c.values_buffer());
    EXPECT_EQ(joined.offset(), c.offset());
  }
  // Not consecutive (a gap, or out of order): copied.
  Column gap = Column::concat({c.slice(0, 100), c.slice(101, 10)});
  Rows expected = sub(ref, 9, 100);
  Rows tail = sub(ref, 110, 10);
  expected.insert(expected.end(), tail.begin(), tail.end());
  EXPECT_EQ(rows_of(gap), expected);
  if (!type().is_nested()) {
    EXPECT_NE(gap.values_buffer(), c.values_buffer());
  }
}

TEST_P(ColumnTypeTest, FilterMatchesReferenceIncludingNullMask) {
  Rows ref = random_rows(type(), 1500, null_rate(), 3);
  Column c = build(type(), ref).slice(13, 1300);
  Rows sliced = sub(ref, 13, 1300);
  Rows mask_rows = random_rows(boolean(), 1400, 0.1, 4);
  // Long runs of true exercise the whole-word copy path.
  for (size_t i = 200; i < 500; ++i) mask_rows[i] = true;
  Column mask = build(boolean(), mask_rows).slice(7, 1300);
  Rows expected;
  for (int64_t i = 0; i < 1300; ++i) {
    const Value& m = mask_rows[size_t(i + 7)];
    if (m.index() != 0 && std::get<bool>(m)) expected.push_back(sliced[size_t(i)]);
  }
  Column f = c.filter(mask);
  EXPECT_EQ(rows_of(f), expected);
  int64_t nulls = 0;
  for (const Value& v : expected) nulls += v.index() == 0;
  EXPECT_EQ(f.null_count(), nulls);
}

TEST_P(ColumnTypeTest, FilterFastPaths) {
  Rows ref = random_rows(type(), 300, null_rate(), 5);
  Column c = build(type(), ref);
  Column all = c.filter(Column::repeat(Value{true}, boolean(), 300));
  EXPECT_EQ(all.values_buffer(), c.values_buffer());  // shared, not copied
  EXPECT_EQ(rows_of(all), ref);
  Column none = c.filter(Column::repeat(Value{false}, boolean(), 300));
  EXPECT_EQ(none.size(), 0);
  EXPECT_EQ(none.type(), type());
  EXPECT_EQ(c.filter(Column::nulls(boolean(), 300)).size(), 0);
}

TEST_P(ColumnTypeTest, BuilderGrowsFromZeroCapacityAndResets) {
  ColumnBuilder b(type(), 0);
  Rows ref = random_rows(type(), 5000, null_rate(), 6);
  for (const Value& v : ref) b.append_value(v);
  EXPECT_EQ(b.size(), 5000);
  Column c = b.finish();
  EXPECT_EQ(rows_of(c), ref);
  EXPECT_EQ(b.size(), 0);
  EXPECT_EQ(b.type(), type());
  Column empty = b.finish();
  EXPECT_EQ(empty.size(), 0);
  EXPECT_EQ(empty.type(), type());
  // append_from copies rows, including nulls, from a slice.
  Column s = c.slice(9, 100);
  for (int64_t i = 0; i < s.size(); ++i) b.append_from(s, i);
  EXPECT_EQ(rows_of(b.finish()), sub(ref, 9, 100));
}

TEST_P(ColumnTypeTest, ByteSizeCoversValues) {
  Column c = build(type(), random_rows(type(), 1000, null_rate(), 7));
  EXPECT_GT(c.byte_size(), 0);
  EXPECT_LE(c.slice(0, 10).byte_size(), c.byte_size());
}

INSTANTIATE_TEST_SUITE_P(AllTypes, ColumnTypeTest,
                         testing::Combine(testing::Values(TypeId::Boolean, TypeId::Int64,
                                                          TypeId::Float64, TypeId::Utf8),
                                          testing::Values(0.0, 0.3)));

TEST(ColumnTest, FromVectors) {
  EXPECT_EQ(rows_of(Column::from(std::vector<int64_t>{1, -2, 3})),
            (Rows{int64_t{1}, int64_t{-2}, int64_t{3}}));
  EXPECT_EQ(rows_of(Column::from(std::vector<double>{1.5, -0.25})), (Rows{1.5, -0.25}));
  EXPECT_EQ(rows_of(Column::from(std::vector<bool>{true, false, true})), (Rows{true, false, true}));
  EXPECT_EQ(rows_of(Column::from(std::vector<std::string>{"ab", "", "c"})),
            (Rows{std::string("ab"), std::string(""), std::string("c")}));
  Column oi = Column::from(std::vector<std::optional<int64_t>>{1, std::nullopt, 3});
  EXPECT_EQ(oi.null_count(), 1);
  EXPECT_EQ(rows_of(oi), (Rows{int64_t{1}, Value{}, int64_t{3}}));
  Column od = Column::from(std::vector<std::optional<double>>{std::nullopt, 2.0});
  EXPECT_EQ(rows_of(od), (Rows{Value{}, 2.0}));
  Column ob = Column::from(std::vector<std::optional<bool>>{false, std::nullopt, true});
  EXPECT_EQ(rows_of(ob), (Rows{false, Value{}, true}));
  Column os = Column::from(std::vector<std::optional<std::string>>{"x", std::nullopt});
  EXPECT_EQ(rows_of(os), (Rows{std::string("x"), Value{}}));
  EXPECT_EQ(os.value<std::string_view>(0), "x");
  EXPECT_EQ(os.value<std::string>(0), "x");
  // Optional vectors without a null need no validity bitmap.
  EXPECT_EQ(Column::from(std::vector<std::optional<int64_t>>{1, 2}).validity_bits(), nullptr);
}

TEST(ColumnTest, ValueChecksType) {
  Column c = Column::from(std::vector<int64_t>{1});
  EXPECT_EQ(c.value<int64_t>(0), 1);
  EXPECT_THROW(c.value<double>(0), TypeError);
  EXPECT_THROW(c.value<std::string_view>(0), TypeError);
}

TEST(ColumnTest, DefaultIsEmptyInt64) {
  Column c;
  EXPECT_EQ(c.size(), 0);
  EXPECT_EQ(c.type(), int64());
  EXPECT_EQ(Column::concat({c, c}).size(), 0);
  EXPECT_EQ(Column::concat({}).size(), 0);
}

TEST(ColumnTest, NullsAndRepeat) {
  for (DataType t : {DataType(), boolean(), int64(), float64(), utf8()}) {
    Column n = Column::nulls(t, 70);
    EXPECT_EQ(n.type(), t);
    EXPECT_EQ(n.null_count(), 70);
    EXPECT_EQ(rows_of(n), Rows(70));
    EXPECT_EQ(rows_of(n.slice(3, 5)), Rows(5));
    EXPECT_EQ(rows_of(Column::concat({n.slice(1, 2), n})), Rows(72));
  }
  EXPECT_EQ(rows_of(Column::repeat(Value{int64_t{7}}, int64(), 3)), Rows(3, int64_t{7}));
  EXPECT_EQ(rows_of(Column::repeat(Value{int64_t{7}}, float64(), 2)), Rows(2, 7.0));
  EXPECT_EQ(rows_of(Column::repeat(Value{true}, boolean(), 67)), Rows(67, true));
  EXPECT_EQ(rows_of(Column::repeat(Value{std::string("hi")}, utf8(), 4)),
            Rows(4, std::string("hi")));
  EXPECT_EQ(rows_of(Column::repeat(Value{}, utf8(), 2)), Rows(2));
  EXPECT_THROW(Column::repeat(Value{std::string("x")}, int64(), 2), InvalidArgument);
}

TEST(ColumnTest, FromBuffersAndValidation) {
  auto values = Buffer::allocate(4 * 8);
  auto* v = reinterpret_cast<int64_t*>(detail::BufferAccess::mutable_data(*values));
  for (int i = 0; i < 4; ++i) v[i] = i * 10;
  auto validity = Buffer::allocate(1);
  detail::BufferAccess::mutable_data(*validity)[0] = 0b1011;
  Column c = Column::from_buffers(int64(), 3, -1, validity, values, nullptr, 1);
  EXPECT_EQ(c.null_count(), 1);  // computed from the bitmap
  EXPECT_EQ(rows_of(c), (Rows{int64_t{10}, Value{}, int64_t{30}}));
  EXPECT_THROW(Column::from_buffers(int64(), 5, 0, nullptr, values), InvalidArgument);
  EXPECT_THROW(Column::from_buffers(int64(), 1, 0, nullptr, nullptr), InvalidArgument);
}

TEST(BufferTest, AlignedZeroFilledAndWrapped) {
  auto b = Buffer::allocate(100);
  EXPECT_EQ(b->size(), 100);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b->data()) % 64, 0u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(b->data()[i], 0);
  EXPECT_NE(Buffer::allocate(0)->data(), nullptr);
  auto owner = std::make_shared<std::vector<int64_t>>(std::vector<int64_t>{5, 6});
  std::weak_ptr<std::vector<int64_t>> watch = owner;
  {
    auto w = detail::BufferAccess::wrap(owner->data(), 16, owner);
    owner.reset();
    EXPECT_FALSE(watch.expired());  // the buffer keeps its owner alive
    Column c = Column::from_buffers(int64(), 2, 0, nullptr, w);
    EXPECT_EQ(c.value<int64_t>(1), 6);
  }
  EXPECT_TRUE(watch.expired());
}

TEST(ColumnTest, MismatchedConcatAndFilterAreInvalidArgument) {
  Column i = Column::from(std::vector<int64_t>{1});
  Column s = Column::from(std::vector<std::string>{"a"});
  EXPECT_THROW(Column::concat({i, s}), InvalidArgument);
  EXPECT_THROW(i.filter(i), InvalidArgument);
  EXPECT_THROW(i.filter(Column::from(std::vector<bool>{true, false})), InvalidArgument);
  EXPECT_THROW(i.slice(0, 2), InvalidArgument);
}

TEST(ColumnBuilderTest, WidensAndRejectsMismatches) {
  ColumnBuilder f(float64());
  f.append_value(Value{int64_t{3}});
  f.append(int64_t{4});
  EXPECT_EQ(rows_of(f.finish()), (Rows{3.0, 4.0}));
  ColumnBuilder s(utf8());
  EXPECT_THROW(s.append_value(Value{int64_t{1}}), InvalidArgument);
  EXPECT_THROW(s.append(true), InvalidArgument);
  ColumnBuilder i(int64());
  EXPECT_THROW(i.append(1.5), InvalidArgument);
  EXPECT_THROW(i.append("x"), InvalidArgument);
  EXPECT_THROW(i.append_from(Column::from(std::vector<double>{1.0}), 0), InvalidArgument);
  ColumnBuilder n{DataType()};
  n.append_null();
  n.append_null();
  Column nc = n.finish();
  EXPECT_EQ(nc.type(), DataType());
  EXPECT_EQ(nc.size(), 2);
}

TEST(ColumnBuilderTest, NullsBeforeAndAfterValues) {
  ColumnBuilder b(utf8(), 2);
  b.append_null();
  b.append("a");
  b.append_null();
  b.append("");
  b.append("bcd");
  Column c = b.finish();
  EXPECT_EQ(rows_of(c),
            (Rows{Value{}, std::string("a"), Value{}, std::string(""), std::string("bcd")}));
  EXPECT_EQ(c.offsets()[5], 4);
}

}  // namespace
}  // namespace ember
