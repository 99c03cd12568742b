// The journal of a resumable write: what it keeps across runs, what it refuses, its lock, and
// how it reacts to damage.
#include "io/output/output_journal.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ember/error.h"
#include "io/output/staged_output.h"
#include "io/scan_reading.h"
#include "io/temp_dir.h"

namespace ember {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using testing_io::error_of;

JournalIdentity identity(const std::string& plan = "p1", const std::string& input = "100 bytes") {
  return {{{"optimized plan", plan}, {"input file a.parquet", input}, {"UDF f", "{x=1}"}}};
}

class OutputJournalTest : public ::testing::Test {
 protected:
  std::string staging() const { return dir_.file(".out.ember-resume"); }
  void SetUp() override { fs::create_directory(staging()); }
  /// A piece file of `bytes` bytes in the staging directory, as a writer leaves it.
  JournalPiece piece_file(int partition, const std::string& name, int bytes, int64_t input_end,
                          bool last) {
    std::ofstream(fs::path(staging()) / name) << std::string(static_cast<size_t>(bytes), 'x');
    return {partition, input_end, bytes / 2, bytes, name, last};
  }
  OutputJournal open(const JournalIdentity& id = identity(), bool discard = false) {
    return OutputJournal::open("out", staging(), true, id, discard);
  }
  std::string journal_text() const {
    std::ifstream in(staging() + ".journal");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  void write_journal(const std::string& text) const {
    std::ofstream(staging() + ".journal", std::ios::trunc) << text;
  }

  testing_io::TempDir dir_;
};

TEST_F(OutputJournalTest, KeepsFinishedPiecesAcrossRuns) {
  {
    OutputJournal j = open();
    EXPECT_TRUE(j.recovered().empty());
    j.append(piece_file(0, "part-00000-00000.csv", 10, 100, false));
    j.append(piece_file(0, "part-00000-00001.csv", 6, 150, true));
    j.append(piece_file(3, "part-00003-00000.csv", 8, 200, false));
    j.append({3, 300, 0, 0, "", false});  // progress with no rows
  }
  std::ofstream(fs::path(staging()) / ".part-00003-00001.csv.tmp") << "half written";
  std::ofstream(fs::path(staging()) / "part-00003-00001.csv") << "committed, not journaled";
  OutputJournal again = open();
  ASSERT_EQ(again.recovered().size(), 2u);
  const JournalPartition& p0 = again.recovered().at(0);
  EXPECT_TRUE(p0.finished);
  ASSERT_EQ(p0.pieces.size(), 2u);
  EXPECT_EQ(p0.pieces[1].file, "part-00000-00001.csv");
  EXPECT_EQ(p0.rows(), 5 + 3);
  const JournalPartition& p3 = again.recovered().at(3);
  EXPECT_FALSE(p3.finished);
  EXPECT_EQ(p3.input_end(), 300);
  EXPECT_EQ(p3.rows(), 4);
  // What the killed run did not journal is gone; what it did is kept.
  EXPECT_FALSE(fs::exists(fs::path(staging()) / ".part-00003-00001.csv.tmp"));
  EXPECT_FALSE(fs::exists(fs::path(staging()) / "part-00003-00001.csv"));
  EXPECT_TRUE(fs::exists(fs::path(staging()) / "part-00003-00000.csv"));
}

TEST_F(OutputJournalTest, RefusesAnotherQueryNamingWhatDiffers) {
  { open().append(piece_file(0, "part-00000.csv", 4, 10, true)); }
  const std::string msg = error_of<InvalidArgument>([&] { open(identity("p1", "120 bytes")); });
  EXPECT_THAT(msg, HasSubstr("input file a.parquet (earlier: 100 bytes; now: 120 bytes)"));
  EXPECT_THAT(msg, Not(HasSubstr("optimized plan")));
  EXPECT_THAT(msg, HasSubstr("discard_unfinished"));
  EXPECT_THAT(error_of<InvalidArgument>([&] { open(identity("p2")); }),
              HasSubstr("optimized plan (earlier: p1; now: p2)"));
  // The refused run changed nothing: the same query still resumes.
  EXPECT_EQ(open().recovered().size(), 1u);
}

TEST_F(OutputJournalTest, DiscardUnfinishedStartsOver) {
  { open().append(piece_file(0, "part-00000.csv", 4, 10, true)); }
  OutputJournal j = open(identity("p2"), /*discard=*/true);
  EXPECT_TRUE(j.recovered().empty());
  EXPECT_TRUE(fs::is_empty(staging()));
  EXPECT_THAT(journal_text(), HasSubstr("p2"));
}

TEST_F(OutputJournalTest, StaleJournalOfACommittedWriteStartsOver) {
  { open().append(piece_file(0, "part-00000.csv", 4, 10, true)); }
  EXPECT_TRUE(OutputJournal::open("out", staging(), false, identity(), false).recovered().empty());
  { open().append(piece_file(0, "part-00000.csv", 4, 10, true)); }
  std::ofstream(fs::path(staging()) / "_SUCCESS");
  EXPECT_TRUE(open().recovered().empty());
}

TEST_F(OutputJournalTest, KeepsASavedBreakerResultAndRefusesItWhenDamaged) {
  {
    OutputJournal j = open();
    EXPECT_FALSE(j.breaker_result().has_value());
    std::ofstream(fs::path(staging()) / "breaker-result.arrow") << std::string(12, 'x');
    j.append(JournalBreakerResult{"breaker-result.arrow", 12, 40, {2, 0, 3}});
    j.append(piece_file(1, "part-00001.csv", 6, 10, true));
  }
  {
    OutputJournal again = open();
    ASSERT_TRUE(again.breaker_result().has_value());
    EXPECT_EQ(again.breaker_result()->file, "breaker-result.arrow");
    EXPECT_EQ(again.breaker_result()->rows, 40);
    EXPECT_EQ(again.breaker_result()->batches, (std::vector<int64_t>{2, 0, 3}));
    EXPECT_EQ(again.recovered().size(), 1u);
    EXPECT_TRUE(fs::exists(fs::path(staging()) / "breaker-result.arrow"));
  }
  fs::resize_file(fs::path(staging()) / "breaker-result.arrow", 5);
  EXPECT_THAT(error_of<IoError>([&] { open(); }), HasSubstr("breaker-result.arrow"));
  OutputJournal fresh = open(identity(), /*discard=*/true);
  EXPECT_FALSE(fresh.breaker_result().has_value());
  EXPECT_FALSE(fs::exists(fs::path(staging()) / "breaker-result.arrow"));
}

TEST_F(OutputJournalTest, DamageIsAnErrorNamingTheJournal) {
  { open().append(piece_file(0, "part-00000.csv", 4, 10, true)); }
  const std::string good = journal_text();
  const std::string journal = staging() + ".journal";

  std::string flipped = good;
  flipped[flipped.rfind("piece 0") + 6] = '7';  // partition 0 -> 7, checksum unchanged
  write_journal(flipped);
  std::string msg = error_of<IoError>([&] { open(); });
  EXPECT_THAT(msg, HasSubstr(journal));
  EXPECT_THAT(msg, HasSubstr("checksum mismatch"));

  write_journal(good.substr(0, good.size() - 5));  // cut short in its last record
  msg = error_of<IoError>([&] { open(); });
  EXPECT_THAT(msg, HasSubstr(journal));
  EXPECT_THAT(msg, HasSubstr("cut short"));

  write_journal(good.substr(0, good.find("begin")));  // no end to its identity
  EXPECT_THAT(error_of<IoError>([&] { open(); }), HasSubstr(journal));

  write_journal(good);
  fs::resize_file(fs::path(staging()) / "part-00000.csv", 2);  // a piece that changed
  msg = error_of<IoError>([&] { open(); });
  EXPECT_THAT(msg, HasSubstr("part-00000.csv"));
  EXPECT_THAT(msg, HasSubstr("it has 2"));
  fs::remove(fs::path(staging()) / "part-00000.csv");
  EXPECT_THAT(error_of<IoError>([&] { open(); }), HasSubstr("missing"));
  // A damaged journal is never taken for a fresh start unless asked: discard_unfinished.
  write_journal(flipped);
  OutputJournal fresh = open(identity(), /*discard=*/true);
  EXPECT_TRUE(fresh.recovered().empty());
  EXPECT_EQ(journal_text().find("piece"), std::string::npos);
}

TEST_F(OutputJournalTest, ASecondJobFailsAtOnceWhileTheFirstHoldsTheLock) {
  OutputJournal first = open();
  const std::string msg = error_of<IoError>([&] { open(); });
  EXPECT_THAT(msg, HasSubstr("'out' is being written by another running resumable job"));
  EXPECT_THAT(msg, HasSubstr(staging()));
  { OutputJournal moved = std::move(first); }  // ended: the lock goes with it
  EXPECT_NO_THROW(open());
}

TEST_F(OutputJournalTest, ResumableStagingIsKeptByAnAbortAndFoundAgain) {
  const std::string target = dir_.file("result");  // not the fixture's "out"
  std::string staged;
  {
    StagedOutput out = StagedOutput::open_resumable(target);
    EXPECT_FALSE(out.existed());
    staged = out.dir();
    std::ofstream(fs::path(staged) / "part-00000.csv") << "a\n";
  }  // aborted: a failed or killed run keeps its pieces for the next
  StagedOutput again = StagedOutput::open_resumable(target);
  EXPECT_TRUE(again.existed());
  EXPECT_EQ(again.dir(), staged);
  EXPECT_TRUE(fs::exists(fs::path(staged) / "part-00000.csv"));
  again.commit();
  EXPECT_TRUE(fs::exists(fs::path(target) / "part-00000.csv"));
  EXPECT_FALSE(fs::exists(staged));
}

}  // namespace
}  // namespace ember
