// The Dremel levels the Parquet writer computes for nested leaves, against sequences worked
// out by hand from the layouts (3-level LIST, MAP with a required key, optional struct groups).
#include "io/parquet/parquet_levels.h"

#include <gtest/gtest.h>

#include "ember/column.h"
#include "io/parquet/parquet_write_schema.h"

namespace ember::parquet {
namespace {

using Levels = std::vector<uint32_t>;

Value i(int64_t v) { return Value{v}; }
Value s(const char* v) { return Value{std::string(v)}; }
const Value null{};

Value list_of(DataType element, std::vector<Value> items) {
  return Value{List{std::move(items), std::move(element)}};
}

Value struct_of(std::vector<std::pair<std::string, Value>> fields) {
  return Value{Struct{std::move(fields)}};
}

Column build(const DataType& type, const std::vector<Value>& rows) {
  ColumnBuilder b(type);
  for (const Value& v : rows) b.append_value(v);
  return b.finish();
}

// The values a leaf's levels point at, rendered.
std::vector<std::string> leaf_values(const LeafLevels& l) {
  std::vector<std::string> out;
  for (const int64_t r : l.value_rows) out.push_back(to_string(l.values.get(r)));
  return out;
}

// The write schema's steps and maximum levels for `type`'s leaf number `k`.
WriteLeaf leaf(const DataType& type, size_t k) { return write_leaves({"c", type}).at(k); }

TEST(ParquetLevels, ListOfListsFollowsTheDremelPaper) {
  const DataType t = list(list(int32()));
  const DataType inner = list(int32());
  // [[1, 2], []], null, [[3]], [], [null, [null]]
  const Column c = build(t, {list_of(inner, {list_of(int32(), {i(1), i(2)}), list_of(int32(), {})}),
                             null, list_of(inner, {list_of(int32(), {i(3)})}), list_of(inner, {}),
                             list_of(inner, {null, list_of(int32(), {null})})});
  const WriteLeaf w = leaf(t, 0);
  EXPECT_EQ(w.max_def, 5);
  EXPECT_EQ(w.max_rep, 2);
  EXPECT_EQ(w.path, (std::vector<std::string>{"c", "list", "element", "list", "element"}));
  const LeafLevels l = leaf_levels(c, w.steps, "c");
  EXPECT_EQ(l.reps, (Levels{0, 2, 1, 0, 0, 0, 0, 1}));
  EXPECT_EQ(l.defs, (Levels{5, 5, 3, 0, 5, 1, 2, 4}));
  EXPECT_EQ(leaf_values(l), (std::vector<std::string>{"1", "2", "3"}));

  // A slice starts at its own first row; its values still index the unsliced leaf.
  const LeafLevels sliced = leaf_levels(c.slice(1, 3), w.steps, "c");
  EXPECT_EQ(sliced.reps, (Levels{0, 0, 0}));
  EXPECT_EQ(sliced.defs, (Levels{0, 5, 1}));
  EXPECT_EQ(leaf_values(sliced), (std::vector<std::string>{"3"}));
}

TEST(ParquetLevels, ThreeListLevelsCountEachRepetition) {
  const DataType t = list(list(list(utf8())));
  const DataType l2 = list(list(utf8())), l1 = list(utf8());
  // [[["a", null], []], [["b"]]], [[], null]
  const Column c =
      build(t, {list_of(l2, {list_of(l1, {list_of(utf8(), {s("a"), null}), list_of(utf8(), {})}),
                             list_of(l1, {list_of(utf8(), {s("b")})})}),
                list_of(l2, {list_of(l1, {}), null})});
  const WriteLeaf w = leaf(t, 0);
  EXPECT_EQ(w.max_def, 7);
  EXPECT_EQ(w.max_rep, 3);
  const LeafLevels l = leaf_levels(c, w.steps, "c");
  EXPECT_EQ(l.reps, (Levels{0, 3, 2, 1, 0, 1}));
  EXPECT_EQ(l.defs, (Levels{7, 6, 5, 7, 3, 2}));
  EXPECT_EQ(leaf_values(l), (std::vector<std::string>{"a", "b"}));
}

TEST(ParquetLevels, StructFieldsSeeTheStructsNulls) {
  const DataType t = struct_({{"a", int64()}, {"b", list(float32())}});
  // {a: 1, b: [1.5, null]}, null, {a: null, b: null}, {a: 2, b: []}
  const Column c =
      build(t, {struct_of({{"a", i(1)}, {"b", list_of(float32(), {Value{1.5f}, null})}}), null,
                struct_of({{"a", null}, {"b", null}}),
                struct_of({{"a", i(2)}, {"b", list_of(float32(), {})}})});
  const WriteLeaf a = leaf(t, 0), b = leaf(t, 1);
  EXPECT_EQ(a.path, (std::vector<std::string>{"c", "a"}));
  EXPECT_EQ(a.max_def, 2);
  EXPECT_EQ(a.max_rep, 0);
  const LeafLevels la = leaf_levels(c, a.steps, "c");
  EXPECT_TRUE(la.reps.empty());
  EXPECT_EQ(la.defs, (Levels{2, 0, 1, 2}));
  EXPECT_EQ(leaf_values(la), (std::vector<std::string>{"1", "2"}));

  EXPECT_EQ(b.path, (std::vector<std::string>{"c", "b", "list", "element"}));
  EXPECT_EQ(b.max_def, 4);
  EXPECT_EQ(b.max_rep, 1);
  const LeafLevels lb = leaf_levels(c, b.steps, "c");
  EXPECT_EQ(lb.reps, (Levels{0, 1, 0, 0, 0}));
  EXPECT_EQ(lb.defs, (Levels{4, 3, 0, 1, 2}));
  EXPECT_EQ(leaf_values(lb), (std::vector<std::string>{"1.5"}));
}

TEST(ParquetLevels, MapKeysAreRequiredAndValuesOptional) {
  const DataType t = map(utf8(), int64());
  auto entry = [](const char* k, Value v) { return struct_of({{"key", s(k)}, {"value", v}}); };
  // {x: 1, y: null}, null, {}, {z: 7}
  const Column c = build(t, {list_of(t.element(), {entry("x", i(1)), entry("y", null)}), null,
                             list_of(t.element(), {}), list_of(t.element(), {entry("z", i(7))})});
  const WriteLeaf key = leaf(t, 0), value = leaf(t, 1);
  EXPECT_EQ(key.path, (std::vector<std::string>{"c", "key_value", "key"}));
  EXPECT_EQ(key.max_def, 2);
  EXPECT_EQ(value.max_def, 3);
  EXPECT_EQ(value.max_rep, 1);
  const LeafLevels lk = leaf_levels(c, key.steps, "c"), lv = leaf_levels(c, value.steps, "c");
  EXPECT_EQ(lk.reps, (Levels{0, 1, 0, 0, 0}));
  EXPECT_EQ(lk.defs, (Levels{2, 2, 0, 1, 2}));
  EXPECT_EQ(leaf_values(lk), (std::vector<std::string>{"x", "y", "z"}));
  EXPECT_EQ(lv.reps, (Levels{0, 1, 0, 0, 0}));
  EXPECT_EQ(lv.defs, (Levels{3, 2, 0, 1, 3}));
  EXPECT_EQ(leaf_values(lv), (std::vector<std::string>{"1", "7"}));
}

TEST(ParquetLevels, ListOfStructs) {
  const DataType item = struct_({{"x", int64()}, {"y", utf8()}});
  const DataType t = list(item);
  // [{x: 1, y: "a"}, null, {x: null, y: "b"}], [], null
  const Column c = build(t, {list_of(item, {struct_of({{"x", i(1)}, {"y", s("a")}}), null,
                                            struct_of({{"x", null}, {"y", s("b")}})}),
                             list_of(item, {}), null});
  const WriteLeaf x = leaf(t, 0), y = leaf(t, 1);
  EXPECT_EQ(y.path, (std::vector<std::string>{"c", "list", "element", "y"}));
  EXPECT_EQ(x.max_def, 4);
  const LeafLevels lx = leaf_levels(c, x.steps, "c"), ly = leaf_levels(c, y.steps, "c");
  EXPECT_EQ(lx.reps, (Levels{0, 1, 1, 0, 0}));
  EXPECT_EQ(lx.defs, (Levels{4, 2, 3, 1, 0}));
  EXPECT_EQ(leaf_values(lx), (std::vector<std::string>{"1"}));
  EXPECT_EQ(ly.defs, (Levels{4, 2, 4, 1, 0}));
  EXPECT_EQ(leaf_values(ly), (std::vector<std::string>{"a", "b"}));
}

TEST(ParquetLevels, FixedSizeListsNestLikeLists) {
  const DataType pair = fixed_size_list(int32(), 2);
  const DataType t = struct_({{"xs", list(pair)}});
  // {xs: [[1, 2], [3, null], null]}, {xs: null}, null
  const Column c =
      build(t, {struct_of({{"xs", list_of(pair, {list_of(int32(), {i(1), i(2)}),
                                                 list_of(int32(), {i(3), null}), null})}}),
                struct_of({{"xs", null}}), null});
  const WriteLeaf w = leaf(t, 0);
  EXPECT_EQ(w.max_def, 6);
  EXPECT_EQ(w.max_rep, 2);
  // A slice puts the struct at an offset inside its children: the levels must not move.
  for (const Column& col : {c, Column::concat({c.slice(2, 1), c}).slice(1, 3)}) {
    const LeafLevels l = leaf_levels(col, w.steps, "c");
    EXPECT_EQ(l.reps, (Levels{0, 2, 1, 2, 1, 0, 0}));
    EXPECT_EQ(l.defs, (Levels{6, 6, 6, 5, 3, 1, 0}));
    EXPECT_EQ(leaf_values(l), (std::vector<std::string>{"1", "2", "3"}));
  }
}

TEST(ParquetLevels, ANullMapKeyIsRefusedNamingTheColumn) {
  const Column keys = Column::from(std::vector<std::optional<std::string>>{"a", std::nullopt});
  const Column entries =
      Column::struct_of({{"key", keys}, {"value", Column::from(std::vector<int64_t>{1, 2})}});
  const int32_t offsets[] = {0, 2};
  const Column c = Column::nested(map(utf8(), int64()), 1, 0, nullptr,
                                  Buffer::copy_of(offsets, sizeof offsets), entries);
  try {
    leaf_levels(c, {0}, "tags");
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("null map key (column 'tags')"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ember::parquet
