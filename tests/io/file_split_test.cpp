// expand_paths, cut_offsets and splits_at.
#include "io/file_split.h"

#include <gtest/gtest.h>

#include "ember/error.h"
#include "io/scan_reading.h"
#include "io/temp_dir.h"

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

TEST(ExpandPaths, WildcardSkipsUnderscoreAndDotNamesUnlessAsked) {
  TempDir dir;
  dir.write("part-00000.csv", "x\n");
  dir.write("_SUCCESS", "");
  dir.write(".part-00001.csv.tmp", "x\n");
  EXPECT_EQ(expand_paths(dir.file("*")), std::vector<std::string>{dir.file("part-00000.csv")});
  EXPECT_EQ(expand_paths(dir.file("_*")), std::vector<std::string>{dir.file("_SUCCESS")});
  EXPECT_EQ(expand_paths(dir.file("_SUCCESS")), std::vector<std::string>{dir.file("_SUCCESS")});
}

TEST(ExpandPaths, OnlyUnderscoreMatchesIsNoMatch) {
  TempDir dir;
  dir.write("_SUCCESS", "");
  const std::string msg = error_of<IoError>([&] { expand_paths(dir.file("*S")); });
  EXPECT_NE(msg.find("no file matches"), std::string::npos) << msg;
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

TEST(CutOffsets, CutTheFileIntoAboutEqualParts) {
  for (int64_t size : {1, 99, 100, 101, 1000, 12345}) {
    for (int64_t split : {0, 1, 7, 100, 5000}) {
      const std::vector<int64_t> cuts = cut_offsets(size, split);
      if (split == 0 || size <= split) {
        EXPECT_TRUE(cuts.empty());
        continue;
      }
      int64_t prev = 0;
      for (const int64_t cut : cuts) {
        EXPECT_LE(cut - prev, split);
        EXPECT_GE(cut - prev, split / 2);
        prev = cut;
      }
      EXPECT_LE(size - prev, split);
      EXPECT_GT(prev, 0);
    }
  }
}

TEST(SplitsAt, SplitsBeginAtEachNewRecordStartAndCoverTheFile) {
  const std::vector<FileSplit> splits = splits_at("f", {10, 10, 25, 40, 40, 99, 100, 120}, 100);
  ASSERT_EQ(splits.size(), 5u);
  const std::vector<int64_t> begins = {0, 10, 25, 40, 99};
  for (size_t i = 0; i < splits.size(); ++i) {
    EXPECT_EQ(splits[i].path, "f");
    EXPECT_EQ(splits[i].begin, begins[i]);
    EXPECT_EQ(splits[i].end, i + 1 < splits.size() ? begins[i + 1] : -1);
  }
  EXPECT_EQ(splits_at("f", {}, 100).size(), 1u);
}

}  // namespace
}  // namespace ember
