// The pieces under a process actor, in one process: column layout in a shared region, and the
// line-prefixing output relay.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <random>
#include <string>

#include "udf/process/column_transfer.h"
#include "udf/process/output_relay.h"
#include "udf/process/shared_region.h"
#include "worker_test_kit.h"

namespace ember::test {
namespace {

TEST(ColumnTransfer, SlicedColumnsRoundTripThroughARegion) {
  std::vector<std::optional<std::string>> words;
  std::vector<std::optional<bool>> flags;
  for (int i = 0; i < 77; ++i) {
    // GCC 12 at -O3 reports a false -Wrestrict inside std::string's inlined insert for
    // "literal" + std::string (GCC bug 105651).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
    words.push_back(i % 4 == 1 ? std::nullopt
                               : std::optional<std::string>("w" + std::to_string(i)));
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
    flags.push_back(i % 6 == 0 ? std::nullopt : std::optional<bool>(i % 2 == 0));
  }
  const std::vector<Column> columns = {
      Column::from(words).slice(5, 60), Column::from(flags).slice(11, 33),
      Column::from(std::vector<double>{1.5, 2.5, 3.5}).slice(1, 2)};
  std::vector<process::ColumnDesc> descs;
  const int64_t bytes = process::plan_columns(columns, &descs);
  ASSERT_EQ(descs.size(), columns.size());
  auto region = process::SharedRegion::create("ember-test", static_cast<size_t>(bytes));
  process::copy_columns(columns, descs, region.map->data());
  for (size_t c = 0; c < columns.size(); ++c) {
    EXPECT_LT(descs[c].offset, 8) << "only the sub-byte part of a slice offset remains";
    EXPECT_EQ(descs[c].values.offset % 64, 0u);
    const Column wrapped = process::wrap_column(descs[c], region.map);
    const Column copied = process::copy_column(descs[c], *region.map);
    ASSERT_EQ(wrapped.size(), columns[c].size());
    for (int64_t i = 0; i < columns[c].size(); ++i) {
      EXPECT_EQ(wrapped.get(i), columns[c].get(i)) << c << "/" << i;
      EXPECT_EQ(copied.get(i), columns[c].get(i)) << c << "/" << i;
    }
  }
  // Only the referenced characters travel: 60 short words, not the whole column's data.
  EXPECT_LE(descs[0].data.size, 60u * 3);
}

TEST(ColumnTransfer, ADescriptorOutsideItsRegionIsRejected) {
  auto region = process::SharedRegion::create("ember-test", 0);
  process::ColumnDesc d;
  d.type_id = static_cast<uint8_t>(TypeId::Int64);
  d.length = 4;
  d.values.offset = region.size() - 8;
  d.values.size = 32;
  d.values.present = 1;
  EXPECT_THROW(process::wrap_column(d, region.map), Error);
}

TEST(OutputRelay, PrefixesLinesAndCutsRunawayLines) {
  TempDir dir;
  const int sink = ::open(dir.file("sink").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int out[2], err[2];
  ASSERT_EQ(::pipe2(out, O_CLOEXEC), 0);
  ASSERT_EQ(::pipe2(err, O_CLOEXEC), 0);
  {
    process::OutputRelay relay("[w #3] ", process::UniqueFd(out[0]), process::UniqueFd(err[0]),
                               sink);
    const std::string text = "one\ntwo\n" + std::string(150 * 1024, 'z') + "\nlast";
    // A writer thread: the relay must keep reading while the pipe is full.
    std::thread writer([&] {
      for (size_t done = 0; done < text.size();) {
        const ssize_t n = ::write(out[1], text.data() + done, text.size() - done);
        if (n <= 0) break;
        done += static_cast<size_t>(n);
      }
      ::close(out[1]);
    });
    const std::string e = "error line\n";
    ASSERT_EQ(::write(err[1], e.data(), e.size()), static_cast<ssize_t>(e.size()));
    ::close(err[1]);
    writer.join();
    relay.finish();
  }
  ::close(sink);
  const std::string got = read_file(dir.file("sink"));
  const std::string z64(64 * 1024, 'z');
  EXPECT_NE(got.find("[w #3] one\n[w #3] two\n"), std::string::npos);
  const std::string error_line = "[w #3] error line\n";
  const size_t error_at = got.find(error_line);
  EXPECT_NE(error_at, std::string::npos);
  // The stderr line may land between two pieces of the long stdout line (the streams are read
  // independently); whole lines never interleave, so without it the pieces are contiguous.
  std::string stdout_only = got;
  if (error_at != std::string::npos) stdout_only.erase(error_at, error_line.size());
  EXPECT_NE(stdout_only.find("[w #3] " + z64 + "\n[w #3] " + z64 + "\n[w #3] " +
                             std::string(22 * 1024, 'z') + "\n"),
            std::string::npos);
  EXPECT_EQ(got.substr(got.size() - 12), "[w #3] last\n") << "a partial line is flushed at the end";
}

}  // namespace
}  // namespace ember::test

namespace ember::test {
namespace {

TEST(ColumnTransfer, ListSlicesCarryOnlyTheirItems) {
  std::vector<std::vector<int64_t>> lists;
  for (int i = 0; i < 100; ++i) lists.push_back(std::vector<int64_t>(size_t(i % 10), i));
  const Column all = Column::from(lists);
  const Column piece = all.slice(40, 20);  // byte-aligned: no neighbouring rows come along
  std::vector<process::ColumnDesc> descs;
  const int64_t bytes = process::plan_columns({piece}, &descs);
  auto region = process::SharedRegion::create("ember-test", static_cast<size_t>(bytes));
  process::copy_columns({piece}, descs, region.map->data());
  const Column back = process::copy_column(descs[0], *region.map);
  ASSERT_EQ(back.type(), list(int64()));
  ASSERT_EQ(back.size(), 20);
  int64_t items = 0;
  for (int64_t i = 0; i < 20; ++i) {
    EXPECT_EQ(back.get(i), piece.get(i)) << i;
    items += piece.list(i).size();
  }
  EXPECT_EQ(back.child().size(), items) << "only the slice's items travel";
}

TEST(ColumnTransfer, ACorruptListDescriptorIsAnErrorNotACrash) {
  auto region = process::SharedRegion::create("ember-test", 64);
  process::ColumnDesc d;
  d.type_id = static_cast<uint8_t>(TypeId::List);
  d.length = 3;
  EXPECT_THROW(process::copy_column(d, *region.map), Error);
  d.data = {0, sizeof(process::ColumnDesc), 1, {}};  // zeros: no items and no offsets
  EXPECT_ANY_THROW(process::copy_column(d, *region.map));
}

/// A value of `type` with nulls about one time in five at every level (a map's keys excepted).
Value nested_value(const DataType& type, std::mt19937& rng, int64_t i) {
  if (rng() % 5 == 0) return Value{};
  switch (type.id()) {
    case TypeId::Int64:
      return Value{int64_t(i * 3 + rng() % 7)};
    case TypeId::Utf8:
      return Value{std::string(rng() % 5, char('a' + i % 26))};
    case TypeId::Struct: {
      Struct s;
      for (const Field& f : type.fields())
        s.fields.emplace_back(f.name, nested_value(f.type, rng, i));
      return Value{std::move(s)};
    }
    default: {  // list or map
      List l;
      l.element = type.element();
      for (uint32_t k = rng() % 4; k > 0; --k) {
        if (type.id() != TypeId::Map) {
          l.items.push_back(nested_value(type.element(), rng, i + k));
          continue;
        }
        Struct entry;
        entry.fields = {{"key", Value{"k" + std::to_string(k)}},
                        {"value", nested_value(type.element().fields()[1].type, rng, i)}};
        l.items.emplace_back(std::move(entry));
      }
      return Value{std::move(l)};
    }
  }
}

/// Struct, map, list<list<list>> and list<struct> columns of 150 rows, nulls at every level.
std::vector<Column> nested_columns() {
  const std::vector<DataType> types = {
      struct_({{"id", int64()},
               {"tags", list(utf8())},
               {"inner", struct_({{"x", int64()}, {"m", map(utf8(), int64())}})}}),
      map(utf8(), struct_({{"n", int64()}, {"s", utf8()}})), list(list(list(int64()))),
      list(struct_({{"a", utf8()}, {"b", list(int64())}}))};
  std::mt19937 rng(7);
  std::vector<Column> out;
  for (const DataType& t : types) {
    ColumnBuilder b(t);
    for (int64_t i = 0; i < 150; ++i) b.append_value(nested_value(t, rng, i));
    out.push_back(b.finish());
  }
  return out;
}

TEST(ColumnTransfer, NestedColumnsRoundTripAtOddOffsets) {
  for (const Column& whole : nested_columns()) {
    for (auto [offset, length] :
         {std::pair<int64_t, int64_t>{0, 150}, {13, 77}, {149, 1}, {5, 0}}) {
      const Column piece = whole.slice(offset, length);
      SCOPED_TRACE(whole.type().to_string() + " slice " + std::to_string(offset));
      // After an int64 column, so that the nested column's buffers do not start the region.
      const std::vector<Column> columns{Column::from(std::vector<int64_t>{1, 2, 3}), piece};
      std::vector<process::ColumnDesc> descs;
      const int64_t bytes = process::plan_columns(columns, &descs);
      auto region = process::SharedRegion::create("ember-test", static_cast<size_t>(bytes));
      process::copy_columns(columns, descs, region.map->data());
      const Column wrapped = process::wrap_column(descs[1], region.map);
      const Column copied = process::copy_column(descs[1], *region.map);
      ASSERT_EQ(wrapped.type(), piece.type());
      ASSERT_EQ(copied.type(), piece.type());
      ASSERT_EQ(wrapped.size(), length);
      EXPECT_EQ(wrapped.null_count(), piece.null_count());
      for (int64_t i = 0; i < length; ++i) {
        ASSERT_EQ(wrapped.get(i), piece.get(i)) << i;
        ASSERT_EQ(copied.get(i), piece.get(i)) << i;
      }
    }
  }
}

TEST(ColumnTransfer, AStructSliceCarriesOnlyItsFieldsRows) {
  const Column whole = nested_columns()[0];
  const Column piece = whole.slice(64, 9);
  std::vector<process::ColumnDesc> descs;
  const int64_t bytes = process::plan_columns({piece}, &descs);
  auto region = process::SharedRegion::create("ember-test", static_cast<size_t>(bytes));
  process::copy_columns({piece}, descs, region.map->data());
  const Column back = process::copy_column(descs[0], *region.map);
  ASSERT_EQ(back.children().size(), 3u);
  EXPECT_LE(back.children()[0].size(), 9 + 7) << "only the slice's rows of a field travel";
  EXPECT_EQ(back.field("inner").get(3), piece.field("inner").get(3));
}

TEST(ColumnTransfer, NestedDescriptorsCountFromTheMappingWhenTheRegionIsNotAtItsStart) {
  // As a batch message or a result after the UDF's own buffers: the region starts at `at`.
  const Column piece = nested_columns()[0].slice(3, 40);
  std::vector<process::ColumnDesc> descs;
  const int64_t bytes = process::plan_columns({piece}, &descs);
  const uint64_t at = 192;
  auto region = process::SharedRegion::create("ember-test", at + static_cast<size_t>(bytes));
  process::copy_columns({piece}, descs, region.map->data() + at, at);
  for (auto* ref : {&descs[0].validity, &descs[0].values, &descs[0].data})
    if (ref->present) ref->offset += at;
  const Column back = process::wrap_column(descs[0], region.map);
  for (int64_t i = 0; i < piece.size(); ++i) ASSERT_EQ(back.get(i), piece.get(i)) << i;
}

TEST(ColumnTransfer, ACorruptStructDescriptorIsAnErrorNotACrash) {
  const Column piece = nested_columns()[0].slice(0, 10);
  std::vector<process::ColumnDesc> descs;
  const int64_t bytes = process::plan_columns({piece}, &descs);
  auto region = process::SharedRegion::create("ember-test", static_cast<size_t>(bytes));
  process::copy_columns({piece}, descs, region.map->data());
  process::ColumnDesc d = descs[0];
  d.data.size -= sizeof(process::ColumnDesc);  // one field descriptor short of the type's three
  EXPECT_THROW(process::copy_column(d, *region.map), Error);
  d = descs[0];
  d.values.present = 0;  // no type: the field names are unknown
  EXPECT_THROW(process::copy_column(d, *region.map), Error);
}

}  // namespace
}  // namespace ember::test
