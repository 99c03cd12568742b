// expand_paths and split_by_size.
#include <gtest/gtest.h>

#include "ember/error.h"
#include "io/file_split.h"
#include "scan_reading.h"
#include "temp_dir.h"

namespace ember {
namespace {

using testing_io::error_of;
using testing_io::TempDir;

TEST(ExpandPaths, PlainPathIsReturnedAsIs) {
  TempDir dir;
  const std::string p = dir.write("a.csv", "x\n1\n");
  EXPECT_EQ(expand_paths(p), std::vector<std::string>{p});
}

TEST(ExpandPaths, GlobIsSorted) {
  TempDir dir;
  dir.write("b.csv", "x\n");
  dir.write("a.csv", "x\n");
  dir.write("c.csv", "x\n");
  dir.write("other.txt", "x\n");
  EXPECT_EQ(expand_paths(dir.file("*.csv")),
            (std::vector<std::string>{dir.file("a.csv"), dir.file("b.csv"), dir.file("c.csv")}));
}

TEST(ExpandPaths, NoMatchNamesThePattern) {
  TempDir dir;
  const std::string pattern = dir.file("nothing-*.csv");
  const std::string msg = error_of<IoError>([&] { expand_paths(pattern); });
  EXPECT_NE(msg.find(pattern), std::string::npos) << msg;
}

TEST(ExpandPaths, MissingFileNamesIt) {
  TempDir dir;
  const std::string p = dir.file("missing.csv");
  const std::string msg = error_of<IoError>([&] { expand_paths(p); });
  EXPECT_NE(msg.find(p), std::string::npos) << msg;
  EXPECT_NE(msg.find("No such file"), std::string::npos) << msg;
}

TEST(ExpandPaths, DirectoryIsAnError) {
  TempDir dir;
  std::filesystem::create_directory(dir.file("sub.csv"));
  dir.write("a.csv", "x\n");
  const std::string msg = error_of<IoError>([&] { expand_paths(dir.file("*.csv")); });
  EXPECT_NE(msg.find(dir.file("sub.csv")), std::string::npos) << msg;
  EXPECT_NE(msg.find("directory"), std::string::npos) << msg;
}

TEST(SplitBySize, CoversTheFileWithoutGapsInAboutEqualParts) {
  for (int64_t size : {1, 99, 100, 101, 1000, 12345}) {
    for (int64_t split : {0, 1, 7, 100, 5000}) {
      const auto splits = split_by_size("f", size, split);
      ASSERT_FALSE(splits.empty());
      EXPECT_EQ(splits.front().begin, 0);
      EXPECT_EQ(splits.back().end, -1);
      for (size_t i = 0; i + 1 < splits.size(); ++i) {
        EXPECT_EQ(splits[i].end, splits[i + 1].begin);
        const int64_t len = splits[i].end - splits[i].begin;
        EXPECT_LE(len, split);
        EXPECT_GE(len, split / 2);
      }
      if (split == 0 || size <= split) {
        EXPECT_EQ(splits.size(), 1u);
      }
    }
  }
}

}  // namespace
}  // namespace ember
