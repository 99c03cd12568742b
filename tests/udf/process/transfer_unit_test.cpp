// The pieces under a process actor, in one process: column layout in a shared region, and the
// line-prefixing output relay.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

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

}  // namespace
}  // namespace ember::test
