// The all-or-nothing commit of an output directory: staging, exchange, abort, checks on the
// target, and removal of what dead writers left.
#include "io/output/staged_output.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "ember/error.h"
#include "io/output/directory_swap.h"
#include "io/output/output_dir.h"
#include "io/output/partition_writer.h"
#include "io/output/staging_dir.h"
#include "io/scan_reading.h"
#include "io/temp_dir.h"

namespace ember {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;
using testing_io::error_of;
using testing_io::read_file;
using testing_io::TempDir;

std::vector<std::string> names(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

/// Hidden entries beside a target named `out`.
std::vector<std::string> debris(const TempDir& dir) {
  std::vector<std::string> out;
  for (const std::string& n : names(dir.path()))
    if (n.rfind(".out.ember-", 0) == 0) out.push_back(n);
  return out;
}

void write_part(const std::string& dir, int part, const std::string& text) {
  const Table t = Table::from_columns({{"s", Column::from(std::vector<std::string>{text})}});
  auto w = open_partition_writer(dir, part, t.schema(), FileFormat::Csv);
  w->write(t.batches().at(0));
  w->commit();
}

/// An old output `out` of `parts` parts, each holding "old".
void make_old_output(const TempDir& dir, int parts) {
  fs::create_directory(dir.file("out"));
  for (int p = 0; p < parts; ++p) write_part(dir.file("out"), p, "old");
  dir.write("out/_SUCCESS", "");
}

/// A debris name of `out` owned by `pid` on this host.
std::string debris_name(pid_t pid) {
  std::string name = staging_name("out", StagingRole::Staging);  // ...-<host>-<pid>-<random>
  const size_t random_dash = name.rfind('-');
  const size_t pid_dash = name.rfind('-', random_dash - 1);
  return name.substr(0, pid_dash + 1) + std::to_string(pid) + name.substr(random_dash);
}

TEST(StagedOutput, OpenStagesBesideTheTargetAndCreatesOnlyItsParents) {
  TempDir dir;
  StagedOutput out = StagedOutput::open(dir.file("a/b/out"));
  EXPECT_TRUE(fs::is_directory(out.dir()));
  EXPECT_EQ(fs::path(out.dir()).parent_path(), fs::path(dir.file("a/b")));
  EXPECT_EQ(fs::path(out.dir()).filename().string().rfind(".out.ember-staging-", 0), 0u);
  EXPECT_FALSE(fs::exists(dir.file("a/b/out")));
}

TEST(StagedOutput, CommitToANewTargetMovesTheSetIntoPlace) {
  TempDir dir;
  {
    StagedOutput out = StagedOutput::open(dir.file("out"));
    write_part(out.dir(), 0, "new");
    out.commit();
  }
  EXPECT_THAT(names(dir.file("out")), ElementsAre("_SUCCESS", "part-00000.csv"));
  EXPECT_EQ(read_file(dir.file("out/part-00000.csv")), "s\nnew\n");
  EXPECT_THAT(debris(dir), IsEmpty());
}

TEST(StagedOutput, CommitReplacesEveryOldEntry) {
  TempDir dir;
  make_old_output(dir, 5);
  dir.write("out/.part-00007.csv.tmp", "left by an older writer that crashed");
  {
    StagedOutput out = StagedOutput::open(dir.file("out"));
    for (int p = 0; p < 3; ++p) write_part(out.dir(), p, "new");
    EXPECT_EQ(names(dir.file("out")).size(), 7u) << "the target is untouched until commit";
    out.commit();
  }
  EXPECT_THAT(names(dir.file("out")),
              ElementsAre("_SUCCESS", "part-00000.csv", "part-00001.csv", "part-00002.csv"));
  EXPECT_EQ(read_file(dir.file("out/part-00002.csv")), "s\nnew\n");
  EXPECT_THAT(debris(dir), IsEmpty());
}

TEST(StagedOutput, DestroyingAnUncommittedOutputLeavesTheTargetAsItWas) {
  TempDir dir;
  make_old_output(dir, 2);
  {
    StagedOutput out = StagedOutput::open(dir.file("out"));
    write_part(out.dir(), 0, "new");
  }
  EXPECT_THAT(names(dir.file("out")), ElementsAre("_SUCCESS", "part-00000.csv", "part-00001.csv"));
  EXPECT_EQ(read_file(dir.file("out/part-00000.csv")), "s\nold\n");
  EXPECT_THAT(debris(dir), IsEmpty());
}

TEST(StagedOutput, KeepsThePermissionsOfTheDirectoryItReplaces) {
  TempDir dir;
  make_old_output(dir, 1);
  fs::permissions(dir.file("out"), fs::perms(0750));
  StagedOutput out = StagedOutput::open(dir.file("out"));
  out.commit();
  EXPECT_EQ(fs::status(dir.file("out")).permissions(), fs::perms(0750));
}

TEST(StagedOutput, WritesThroughALinkIntoTheDirectoryItNames) {
  TempDir dir;
  make_old_output(dir, 2);
  fs::create_directory_symlink(dir.file("out"), dir.file("link"));
  StagedOutput out = StagedOutput::open(dir.file("link"));
  write_part(out.dir(), 0, "new");
  out.commit();
  EXPECT_TRUE(fs::is_symlink(dir.file("link")));
  EXPECT_THAT(names(dir.file("link")), ElementsAre("_SUCCESS", "part-00000.csv"));
}

TEST(StagedOutput, ForeignEntriesMakeTheTargetIrreplaceable) {
  for (const std::string foreign : {"notes.txt", "part-00000.orc", "_SUCCESS.bak"}) {
    TempDir dir;
    make_old_output(dir, 1);
    dir.write("out/" + foreign, "mine");
    const std::string msg = error_of<InvalidArgument>([&] { StagedOutput::open(dir.file("out")); });
    EXPECT_THAT(msg, HasSubstr("'" + dir.file("out") + "'"));
    EXPECT_THAT(msg, HasSubstr("'" + foreign + "'"));
    EXPECT_EQ(names(dir.file("out")).size(), 3u);
    EXPECT_THAT(debris(dir), IsEmpty()) << "nothing is staged for a target that is refused";
  }
}

TEST(StagedOutput, ADirectoryOrLinkNamedLikeAPartIsForeign) {
  TempDir dir;
  fs::create_directories(dir.file("out/part-00000.csv"));
  EXPECT_THROW(StagedOutput::open(dir.file("out")), InvalidArgument);
  TempDir dir2;
  fs::create_directory(dir2.file("out"));
  fs::create_symlink(dir2.write("elsewhere", "x"), dir2.file("out/part-00000.csv"));
  EXPECT_THROW(StagedOutput::open(dir2.file("out")), InvalidArgument);
}

TEST(StagedOutput, AForeignFileThatAppearsBeforeCommitStopsIt) {
  TempDir dir;
  make_old_output(dir, 1);
  StagedOutput out = StagedOutput::open(dir.file("out"));
  write_part(out.dir(), 0, "new");
  dir.write("out/report.pdf", "written while the query ran");
  EXPECT_THROW(out.commit(), InvalidArgument);
  out.abort();
  EXPECT_THAT(names(dir.file("out")), ElementsAre("_SUCCESS", "part-00000.csv", "report.pdf"));
  EXPECT_THAT(debris(dir), IsEmpty());
}

TEST(StagedOutput, TargetsThatCannotBeDirectoriesAreIoErrors) {
  TempDir dir;
  dir.write("file", "x");
  EXPECT_THAT(error_of<IoError>([&] { StagedOutput::open(dir.file("file")); }),
              HasSubstr("not a directory"));
  EXPECT_THAT(error_of<IoError>([&] { StagedOutput::open(dir.file("file/out")); }),
              HasSubstr(dir.file("file/out")));
  EXPECT_THROW(StagedOutput::open("/proc/ember-io-test-out"), IoError);
  EXPECT_THROW(StagedOutput::open(""), IoError);
  EXPECT_THROW(StagedOutput::open("/"), InvalidArgument);
  fs::create_symlink(dir.file("nowhere"), dir.file("dangling"));
  EXPECT_THROW(StagedOutput::open(dir.file("dangling")), IoError);
}

TEST(StagedOutput, UnwritableTargetIsAnIoError) {
  if (::geteuid() == 0) GTEST_SKIP() << "root may write anywhere";
  TempDir dir;
  make_old_output(dir, 1);
  fs::permissions(dir.file("out"), fs::perms(0555));
  EXPECT_THAT(error_of<IoError>([&] { StagedOutput::open(dir.file("out")); }),
              HasSubstr("not writable"));
  fs::permissions(dir.file("out"), fs::perms(0755));
}

TEST(StagedOutput, TwoWritersToOneTargetBothCommitWholeSets) {
  TempDir dir;
  make_old_output(dir, 4);
  StagedOutput first = StagedOutput::open(dir.file("out"));
  StagedOutput second = StagedOutput::open(dir.file("out"));  // leaves `first` alone
  ASSERT_TRUE(fs::is_directory(first.dir()));
  write_part(first.dir(), 0, "first");
  write_part(second.dir(), 0, "second");
  write_part(second.dir(), 1, "second");
  first.commit();
  EXPECT_THAT(names(dir.file("out")), ElementsAre("_SUCCESS", "part-00000.csv"));
  second.commit();
  EXPECT_THAT(names(dir.file("out")), ElementsAre("_SUCCESS", "part-00000.csv", "part-00001.csv"));
  EXPECT_EQ(read_file(dir.file("out/part-00000.csv")), "s\nsecond\n");
  EXPECT_THAT(debris(dir), IsEmpty());
}

TEST(StagingDebris, OnlyDirectoriesOfDeadOwnersOnThisHostAreRemoved) {
  TempDir dir;
  const std::string dead = debris_name(2147483647);  // above any pid_max: never runs
  const std::string unclaimed_own = debris_name(::getpid());
  const std::string live = debris_name(1);  // init always runs
  const std::string other_host = ".out.ember-staging-some-other-host-2147483647-00ff";
  const std::string other_target = ".output.ember-staging-x-2147483647-00ff";
  for (const auto& n : {dead, unclaimed_own, live, other_host, other_target}) {
    fs::create_directory(dir.file(n));
    dir.write(n + "/part-00000.csv", "partial");
  }
  EXPECT_EQ(remove_dead_staging(dir.path(), "out"), 2);
  EXPECT_THAT(names(dir.path()), UnorderedElementsAre(live, other_host, other_target));
}

TEST(StagingDebris, OpeningATargetRemovesItsDebris) {
  TempDir dir;
  make_old_output(dir, 1);
  fs::create_directory(dir.file(debris_name(2147483647)));
  StagedOutput out = StagedOutput::open(dir.file("out"));
  EXPECT_EQ(debris(dir).size(), 1u);  // only its own staging directory
  EXPECT_EQ(dir.file(debris(dir).at(0)), out.dir());
}

TEST(StagingDebris, LongTargetNamesStillFitInAFileName) {
  TempDir dir;
  const std::string target(250, 'x');
  StagedOutput out = StagedOutput::open(dir.file(target));
  write_part(out.dir(), 0, "new");
  out.commit();
  EXPECT_THAT(names(dir.file(target)), ElementsAre("_SUCCESS", "part-00000.csv"));
}

TEST(DirectorySwap, ExchangeLeavesTheOldSetWhereTheNewOneWas) {
  TempDir dir;
  fs::create_directory(dir.file("new"));
  fs::create_directory(dir.file("old"));
  dir.write("new/a", "new");
  dir.write("old/a", "old");
  const std::string previous = replace_directory(dir.file("new"), dir.file("old"), dir.file("x"));
  EXPECT_EQ(read_file(dir.file("old/a")), "new");
  ASSERT_FALSE(previous.empty());
  EXPECT_EQ(read_file(previous + "/a"), "old");
}

TEST(DirectorySwap, MovingAsideIsTheFallback) {
  TempDir dir;
  fs::create_directory(dir.file("new"));
  fs::create_directory(dir.file("old"));
  dir.write("new/a", "new");
  dir.write("old/a", "old");
  EXPECT_EQ(replace_by_moving_aside(dir.file("new"), dir.file("old"), dir.file("aside")),
            dir.file("aside"));
  EXPECT_EQ(read_file(dir.file("old/a")), "new");
  EXPECT_EQ(read_file(dir.file("aside/a")), "old");
  fs::create_directory(dir.file("newer"));
  EXPECT_EQ(replace_by_moving_aside(dir.file("newer"), dir.file("fresh"), dir.file("aside2")), "");
  EXPECT_TRUE(fs::is_directory(dir.file("fresh")));
}

TEST(DirectorySwap, AFailedFallbackPutsTheOldSetBack) {
  TempDir dir;
  fs::create_directory(dir.file("old"));
  dir.write("old/a", "old");
  EXPECT_THROW(replace_by_moving_aside(dir.file("missing"), dir.file("old"), dir.file("aside")),
               IoError);
  EXPECT_EQ(read_file(dir.file("old/a")), "old");
  EXPECT_FALSE(fs::exists(dir.file("aside")));
}

TEST(OutputDir, OutputFileNames) {
  for (const char* n : {"part-00000.csv", "part-123456.jsonl", "_SUCCESS", ".part-00001.csv.tmp",
                        ".part-00002.jsonl.tmp"})
    EXPECT_TRUE(is_output_file_name(n)) << n;
  for (const char* n : {"notes.txt", "part-0.orc", "data.csv", ".part-00001.csv", "_SUCCESS2",
                        ".tmp", "..tmp", "part-.csvx"})
    EXPECT_FALSE(is_output_file_name(n)) << n;
}

TEST(OutputDir, InputsInsideTheDirectoryHoweverSpelledAreRefused) {
  TempDir dir;
  make_old_output(dir, 1);
  dir.write("out2.csv", "s\nx\n");
  const OutputDir out = resolve_output_dir(dir.file("sub/../out"));
  EXPECT_NO_THROW(check_not_read_by_query(out, {dir.file("out2.csv")}));
  const std::string input = dir.file("out/./part-00000.csv");
  EXPECT_THAT(error_of<InvalidArgument>([&] { check_not_read_by_query(out, {input}); }),
              HasSubstr(input));
  EXPECT_THROW(check_not_read_by_query(resolve_output_dir(dir.path()), {input}), InvalidArgument);
}

}  // namespace
}  // namespace ember
