// A glob under a directory that does not exist says so, naming the directory.
#include <gtest/gtest.h>

#include "ember/error.h"
#include "io/file_split.h"
#include "io/scan_reading.h"
#include "io/temp_dir.h"

namespace ember {
namespace {

using testing_io::error_of;
using testing_io::TempDir;

TEST(ExpandPaths, GlobUnderAMissingDirectoryNamesTheDirectory) {
  TempDir dir;
  const std::string pattern = dir.file("missing/*.csv");
  EXPECT_EQ(error_of<IoError>([&] { expand_paths(pattern); }),
            "cannot expand '" + pattern + "': no such directory '" + dir.file("missing") + "'");
}

TEST(ExpandPaths, GlobInAMissingDirectoryPathNamesItsFixedPart) {
  TempDir dir;
  const std::string pattern = dir.file("missing/part-*/*.csv");
  EXPECT_EQ(error_of<IoError>([&] { expand_paths(pattern); }),
            "cannot expand '" + pattern + "': no such directory '" + dir.file("missing") + "'");
}

}  // namespace
}  // namespace ember
