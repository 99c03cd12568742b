// The expression library inside whole queries: in where, select, with_column, group_by keys and
// aggregate inputs, over several partitions, each result checked against a loop in the test.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <optional>

#include "ember/ember.h"

using namespace ember;

namespace {

constexpr int64_t kRows = 5000;
constexpr int64_t kDay = 86400LL * 1000000LL;

// Row i: a text (null every 11th row), a score, a timestamp, an embedding.
std::optional<std::string> text_of(int64_t i) {
  if (i % 11 == 0) return std::nullopt;
  return (i % 3 == 0 ? "Café " : "Tea ") + std::to_string(i);
}
double score_of(int64_t i) { return double((i * 37) % 101) - 50.0; }
int64_t micros_of(int64_t i) { return (i - 2500) * kDay / 7; }
std::vector<float> embedding_of(int64_t i) { return {float(i % 5), 1.0f, float(i % 3) - 1.0f}; }

DataFrame frame() {
  std::vector<int64_t> id;
  std::vector<std::optional<std::string>> text;
  std::vector<double> score;
  std::vector<Timestamp> ts;
  std::vector<std::vector<float>> emb;
  for (int64_t i = 0; i < kRows; ++i) {
    id.push_back(i);
    text.push_back(text_of(i));
    score.push_back(score_of(i));
    ts.push_back(Timestamp{micros_of(i)});
    emb.push_back(embedding_of(i));
  }
  Table t = Table::from_columns({{"id", Column::from(id)},
                                 {"text", Column::from(text)},
                                 {"score", Column::from(score)},
                                 {"ts", Column::from(ts)},
                                 {"emb", Column::from(emb)}});
  return from_table(t, 4).with_column("emb", col("emb").cast(fixed_size_list(float32(), 3)));
}

// Year of a timestamp (UTC), computed independently: civil from days (Hinnant's algorithm).
int64_t year_of(int64_t micros) {
  int64_t z = micros / kDay - (micros % kDay < 0) + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  return yoe + era * 400 + (mp >= 10 ? 1 : 0);
}

TEST(ExpressionLibraryQuery, WhereSelectAndWithColumn) {
  const Table out = frame()
                        .where(col("text").str_lower().str_contains("café") &&
                               col("score").abs().between(lit(10.0), lit(40.0)))
                        .with_column("bucket", when(col("score") > 0, lit("up"), lit("down")))
                        .select({col("id"), col("bucket"), col("text").str_upper().alias("loud"),
                                 col("text").str_length().alias("len")})
                        .collect();
  std::vector<int64_t> want;
  for (int64_t i = 0; i < kRows; ++i) {
    const double a = std::fabs(score_of(i));
    if (text_of(i) && i % 3 == 0 && a >= 10 && a <= 40) want.push_back(i);
  }
  ASSERT_EQ(out.num_rows(), int64_t(want.size()));
  const Column id = out.column("id"), bucket = out.column("bucket"), loud = out.column("loud"),
               len = out.column("len");
  for (int64_t r = 0; r < out.num_rows(); ++r) {
    const int64_t i = want[size_t(r)];
    ASSERT_EQ(id.value<int64_t>(r), i);
    EXPECT_EQ(bucket.value<std::string>(r), score_of(i) > 0 ? "up" : "down");
    EXPECT_EQ(loud.value<std::string>(r), "CAFÉ " + std::to_string(i));
    EXPECT_EQ(len.value<int64_t>(r), int64_t(5 + std::to_string(i).size()));
  }
}

TEST(ExpressionLibraryQuery, GroupByKeysAndAggregateInputs) {
  const Table out = frame()
                        .group_by({col("ts").dt_year().alias("year")})
                        .agg({col("score").abs().sum().alias("total"),
                              col("text").fill_null(lit("")).str_length().max().alias("longest")})
                        .collect();
  std::map<int64_t, std::pair<double, int64_t>> want;
  for (int64_t i = 0; i < kRows; ++i) {
    auto& [total, longest] = want[year_of(micros_of(i))];
    total += std::fabs(score_of(i));
    const auto t = text_of(i);
    longest = std::max<int64_t>(longest, t ? int64_t(t->size() - (i % 3 == 0 ? 1 : 0)) : 0);
  }
  ASSERT_EQ(out.num_rows(), int64_t(want.size()));
  const Column year = out.column("year"), total = out.column("total"),
               longest = out.column("longest");
  for (int64_t r = 0; r < out.num_rows(); ++r) {
    const auto& w = want.at(year.value<int64_t>(r));
    EXPECT_DOUBLE_EQ(total.value<double>(r), w.first);
    EXPECT_EQ(longest.value<int64_t>(r), w.second);
  }
}

TEST(ExpressionLibraryQuery, NearestEmbeddingsWithTopK) {
  const List query{{Value{1.0f}, Value{1.0f}, Value{0.0f}}, float32()};
  const Table out = frame()
                        .with_column("s", cosine_similarity(col("emb"), lit(query)))
                        .top_k(10, {SortKey{col("s"), true}, SortKey{col("id")}})
                        .collect();
  // Reference: the similarity of every row, then the ten largest (ties by id).
  std::vector<std::pair<double, int64_t>> all;
  for (int64_t i = 0; i < kRows; ++i) {
    const auto e = embedding_of(i);
    const double dot = double(e[0]) + e[1];
    const double norm = std::sqrt(double(e[0]) * e[0] + double(e[1]) * e[1] + double(e[2]) * e[2]);
    all.push_back({-dot / (norm * std::sqrt(2.0)), i});
  }
  std::sort(all.begin(), all.end());
  ASSERT_EQ(out.num_rows(), 10);
  for (int64_t r = 0; r < 10; ++r) {
    EXPECT_EQ(out.column("id").value<int64_t>(r), all[size_t(r)].second);
    EXPECT_NEAR(out.column("s").value<double>(r), -all[size_t(r)].first, 1e-12);
  }
}

TEST(ExpressionLibraryQuery, DeterministicSplitAndTimestampLiterals) {
  const DataFrame f = frame();
  const int64_t train = f.where(col("id").hash() % 10 < 8).collect().num_rows();
  EXPECT_NEAR(double(train) / double(kRows), 0.8, 0.03);
  EXPECT_EQ(f.where(col("id").hash() % 10 < 8).collect().num_rows(), train);  // same rows again
  const int64_t recent = f.where(col("ts") >= lit_timestamp("1970-01-01")).collect().num_rows();
  int64_t want = 0;
  for (int64_t i = 0; i < kRows; ++i) want += micros_of(i) >= 0;
  EXPECT_EQ(recent, want);
}

TEST(ExpressionLibraryQuery, BadCallsFailWhenThePlanIsBuilt) {
  EXPECT_THROW(frame().where(col("text").str_match("([a-z]")).collect(), InvalidArgument);
  EXPECT_THROW(frame().select({col("score").str_lower()}).collect(), TypeError);
  EXPECT_THROW(frame().with_column("y", col("id").dt_year()).explain(), TypeError);
}

TEST(ExpressionLibraryQuery, SplitThenExplode) {
  const Table out = frame()
                        .where(col("id") < 30)
                        .with_column("w", col("text").str_split(" "))
                        .explode("w")
                        .where(!col("w").is_null())
                        .collect();
  int64_t want = 0;
  for (int64_t i = 0; i < 30; ++i) want += text_of(i) ? 2 : 0;
  EXPECT_EQ(out.num_rows(), want);
}

}  // namespace
