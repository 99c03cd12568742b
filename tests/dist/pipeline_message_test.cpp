// A query's first pipeline as a message: the chain another rank plans again is the same chain,
// and the shapes that cannot travel say why they stay on rank 0.
#include "dist/pipeline_message.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "ember/error.h"
#include "exec/sources/bucket_join_source.h"
#include "exec/sources/file_scan_source.h"
#include "exec/sources/parquet_source.h"
#include "exec/sources/range_source.h"
#include "exec/sources/table_source.h"
#include "expr/expr_access.h"
#include "io/output/partition_writer.h"
#include "plan/logical_plan.h"

namespace ember::dist {
namespace {

ExprPtr tree(const Expr& e) { return detail::ExprAccess::node(e); }

NodePtr range_source(int64_t n, int parts) {
  return make_source(std::make_shared<RangeSource>(n, parts));
}

TEST(PipelineMessage, FiltersAndProjectionsTravelUpToTheFirstBreaker) {
  NodePtr chain = make_filter(range_source(100, 4), tree(col("id") % lit(int64_t{3}) == lit(0)));
  chain = make_project(chain, {tree(col("id")), tree((col("id") * lit(2.5)).alias("half")),
                               tree(lit(std::string("k")).alias("s"))});
  NodePtr root = make_limit(chain, 7);
  std::string why;
  const std::string bytes = encode_first_pipeline(*root, &why);
  ASSERT_FALSE(bytes.empty()) << why;
  bool partials = true;
  encode_first_pipeline(*root, &why, &partials);
  NodePtr again = decode_first_pipeline(bytes);
  // Everything below the limit travels, unchanged, and the limit with it, so that each rank
  // stops a partition at 7 rows; its rows still go to rank 0's limit (no partial states).
  EXPECT_EQ(to_string(*again), to_string(*root));
  EXPECT_EQ(again->schema, chain->schema);
  EXPECT_FALSE(partials);
}

TEST(PipelineMessage, ADownloadTravelsWithItsOptionsSoThatRanksFetchTheirOwnFiles) {
  NodePtr chain = make_project(
      range_source(50, 5),
      {tree(col("id")), tree(concat({lit("/data/f"), col("id").cast(utf8())}).alias("url"))});
  DownloadOptions options;
  options.max_connections = 7;
  options.on_error = OnError::Null;
  chain = make_url_download(chain, "url", "url", "img", options);
  NodePtr root = make_limit(chain, 7);
  std::string why;
  const std::string bytes = encode_first_pipeline(*root, &why);
  ASSERT_FALSE(bytes.empty()) << why;
  NodePtr again = decode_first_pipeline(bytes);
  EXPECT_EQ(to_string(*again), to_string(*root));
  EXPECT_NE(to_string(*again).find("max_connections=7, on_error=null"), std::string::npos)
      << to_string(*again);
  EXPECT_EQ(again->schema, chain->schema);
}

TEST(PipelineMessage, AGroupByTravelsWithItsChainSoThatRanksAggregateTheirOwnPartitions) {
  NodePtr chain =
      make_project(range_source(100, 4), {tree(col("id")), tree((col("id") % 7).alias("k"))});
  NodePtr grouped = make_group_by(chain, {tree(col("k"))},
                                  {tree(col("id").sum().alias("s")),
                                   tree(col("id").list().alias("ids")), tree(col("id").first())});
  NodePtr root = make_limit(grouped, 3);
  std::string why;
  bool partials = false;
  const std::string bytes = encode_first_pipeline(*root, &why, &partials);
  ASSERT_FALSE(bytes.empty()) << why;
  EXPECT_TRUE(partials);
  // The group-by arrives on top of its chain; what follows it (the limit) stays on rank 0.
  NodePtr again = decode_first_pipeline(bytes);
  EXPECT_EQ(to_string(*again), to_string(*grouped));
  EXPECT_EQ(again->schema, grouped->schema);

  NodePtr summed = make_aggregate(chain, {tree(col("id").mean().alias("m"))});
  partials = false;
  NodePtr total = decode_first_pipeline(encode_first_pipeline(*summed, &why, &partials));
  EXPECT_TRUE(partials);
  EXPECT_EQ(to_string(*total), to_string(*summed));
}

TEST(PipelineMessage, TheFiltersAndProjectionsAfterAGroupByTravelForAWriteByKeyRange) {
  NodePtr chain =
      make_project(range_source(100, 4), {tree(col("id")), tree((col("id") % 7).alias("k"))});
  NodePtr grouped = make_group_by(chain, {tree(col("k"))}, {tree(col("id").sum().alias("s"))});
  NodePtr root = make_project(make_filter(grouped, tree(col("s") > lit(int64_t{10}))),
                              {tree(col("k")), tree((col("s") * lit(2)).alias("twice"))});
  std::string why;
  bool partials = false, tail = false;
  const std::string bytes = encode_first_pipeline(*root, &why, &partials, &tail);
  ASSERT_FALSE(bytes.empty()) << why;
  EXPECT_TRUE(partials);
  EXPECT_TRUE(tail);
  // Every rank gets the whole plan: the group-by's chain, then what follows it.
  NodePtr again = decode_first_pipeline(bytes);
  EXPECT_EQ(to_string(*again), to_string(*root));
  EXPECT_EQ(again->schema, root->schema);
  // A group-by written as it is: nothing follows, and the tail (empty) travels.
  tail = false;
  EXPECT_EQ(
      to_string(*decode_first_pipeline(encode_first_pipeline(*grouped, &why, &partials, &tail))),
      to_string(*grouped));
  EXPECT_TRUE(tail);
  // A second breaker above it (a sort): what follows the group-by runs on rank 0.
  NodePtr sorted = make_sort(make_filter(grouped, tree(col("s") > lit(int64_t{10}))),
                             {SortSpec{tree(col("s"))}});
  tail = true;
  NodePtr first = decode_first_pipeline(encode_first_pipeline(*sorted, &why, &partials, &tail));
  EXPECT_FALSE(tail);
  EXPECT_EQ(to_string(*first), to_string(*grouped));
}

TEST(PipelineMessage, ATopKTravelsWithItsKeysAndDirections) {
  NodePtr chain = range_source(100, 4);
  NodePtr top = make_top_k(chain, 7, {{tree(col("id") % 3), true, true}, {tree(col("id"))}});
  std::string why;
  bool partials = false;
  const std::string bytes = encode_first_pipeline(*top, &why, &partials);
  ASSERT_FALSE(bytes.empty()) << why;
  EXPECT_TRUE(partials);
  EXPECT_EQ(to_string(*decode_first_pipeline(bytes)), to_string(*top));
  // A full sort travels too: each rank sorts its partitions, which go to rank 0 sorted.
  NodePtr sorted = make_sort(chain, {{tree(col("id")), true, true}, {tree(col("id") % 5)}});
  partials = false;
  EXPECT_EQ(to_string(*decode_first_pipeline(encode_first_pipeline(*sorted, &why, &partials))),
            to_string(*sorted));
  EXPECT_TRUE(partials);
}

TEST(PipelineMessage, AGroupByOtherRanksCannotEvaluateLeavesThemSendingRows) {
  // A stateless UDF holds a function only this program's rank 0 has: the chain below the
  // group-by still travels, without the group-by, and the ranks send their rows.
  Udf twice = Udf::fn("twice", [](const Batch& in) { return in.column(0); }).returns(int64());
  NodePtr chain = range_source(100, 4);
  NodePtr grouped =
      make_group_by(chain, {tree(twice(col("id")).alias("k"))}, {tree(col("id").sum().alias("s"))});
  std::string why;
  bool partials = true;
  const std::string bytes = encode_first_pipeline(*grouped, &why, &partials);
  ASSERT_FALSE(bytes.empty()) << why;
  EXPECT_FALSE(partials);
  EXPECT_EQ(to_string(*decode_first_pipeline(bytes)), to_string(*chain));
}

TEST(PipelineMessage, ListValuesTravel) {
  List items{{Value{int64_t{1}}, Value{}, Value{int64_t{3}}}, int64()};
  const Schema schema({{"l", list(int64())}});
  ColumnBuilder column(list(int64()), 2);
  column.append_value(Value{items});
  column.append_value(Value{});
  NodePtr table = make_source(
      std::make_shared<TableSource>(Table(schema, {Batch(schema, {column.finish()})}), 1));
  std::string why;
  const std::string bytes = encode_first_pipeline(*table, &why);
  ASSERT_FALSE(bytes.empty()) << why;
  NodePtr again = decode_first_pipeline(bytes);
  const auto& source = *static_cast<const SourceNode&>(*again).source;
  auto batch = source.open(0, 100)->next();
  ASSERT_TRUE(batch);
  ASSERT_EQ(batch->num_rows(), 2);
  EXPECT_EQ(batch->column(0).get(0), Value{items});
  EXPECT_TRUE(batch->column(0).is_null(1));
}

TEST(PipelineMessage, AJoinTravelsWithItsWholeRightSideForEveryRankToBuild) {
  NodePtr right = make_project(make_filter(range_source(50, 2), tree(col("id") % 2 == 0)),
                               {tree(col("id")), tree((col("id") * 10).alias("label"))});
  for (JoinType type : {JoinType::Inner, JoinType::Left, JoinType::Semi, JoinType::Anti}) {
    NodePtr joined = make_join(range_source(100, 4), right, {"id"}, type);
    NodePtr root = make_filter(joined, tree(col("id") > 3));
    std::string why;
    const std::string bytes = encode_first_pipeline(*root, &why);
    ASSERT_FALSE(bytes.empty()) << join_type_name(type) << ": " << why;
    EXPECT_EQ(to_string(*decode_first_pipeline(bytes)), to_string(*root)) << join_type_name(type);
  }
}

TEST(PipelineMessage, ARightOrFullJoinEndsTheFirstPipelineInItsTail) {
  // The unmatched right rows are known once every probe has ended: the join's tail is the
  // first breaker (its partial states: the right rows each rank matched), and what follows it
  // (the filter) runs on rank 0.
  for (JoinType type : {JoinType::Right, JoinType::Full}) {
    NodePtr joined = make_join(range_source(100, 4), range_source(5, 1), {"id"}, type);
    NodePtr filtered = make_filter(joined, tree(col("id") > lit(int64_t{3})));
    std::string why;
    bool partials = false;
    const std::string bytes = encode_first_pipeline(*filtered, &why, &partials);
    ASSERT_FALSE(bytes.empty()) << why;
    EXPECT_TRUE(partials);
    EXPECT_EQ(to_string(*decode_first_pipeline(bytes)), to_string(*joined));
  }
}

TEST(PipelineMessage, AJoinStaysOnRankZeroWhenItsRightSideIsNotASmallTable) {
  auto why_not = [](const NodePtr& root) {
    std::string why;
    EXPECT_TRUE(encode_first_pipeline(*root, &why).empty());
    return why;
  };
  NodePtr left = range_source(100, 4);
  // A right join on the right side of another: every rank would need every probe's matches.
  NodePtr right_join = make_join(range_source(5, 1), range_source(5, 1), {"id"}, JoinType::Right);
  EXPECT_EQ(why_not(make_join(left, right_join, {"id"}, JoinType::Inner)),
            "a breaker on the right side of a join");
  // Every rank would read 80 MB again.
  const std::string big =
      why_not(make_join(left, range_source(10'000'000, 4), {"id"}, JoinType::Inner));
  EXPECT_NE(big.find("(76 MiB) is larger than what every rank reads again (64 MiB)"),
            std::string::npos)
      << big;
  // Every rank would call the UDF for every right row, or run the breaker whole.
  UdfSpec spec;
  spec.name = "label";
  spec.class_name = "Label";
  spec.return_type = int64();
  NodePtr labelled = make_actor_pool_project(range_source(5, 1), std::make_shared<UdfSpec>(spec),
                                             {"id"}, {"id"}, "label");
  EXPECT_EQ(why_not(make_join(left, labelled, {"id"}, JoinType::Inner)),
            "a UDF on the right side of a join");
  EXPECT_EQ(why_not(make_join(left, make_limit(range_source(5, 1), 2), {"id"}, JoinType::Inner)),
            "a breaker on the right side of a join");
}

// Under 64 MiB, a right side is read by every rank while that costs less than exchanging both
// sides: its bytes (range sources: 8 a row) times the ranks at most the left side's, or 1 MiB.
TEST(PipelineMessage, ARightSideEveryRankCouldReadIsExchangedWhenThatCostsLess) {
  const auto picked = [](int64_t left_rows, int64_t right_rows, int ranks) {
    NodePtr joined =
        make_join(range_source(left_rows, 4), range_source(right_rows, 2), {"id"}, JoinType::Inner);
    return pick_shuffled_join(*make_filter(joined, tree(col("id") > 3)), ranks) == joined.get();
  };
  EXPECT_FALSE(picked(10'000'000, 2'000'000, 3));  // 16 MB read 3 times against 80 MB once
  EXPECT_TRUE(picked(1'000'000, 2'000'000, 3));    // 16 MB read 3 times against 8 MB once
  EXPECT_FALSE(picked(2'000'000, 1'000'000, 2));   // 8 MB twice against 16 MB once: even
  EXPECT_TRUE(picked(2'000'000, 1'000'000, 3));
  EXPECT_FALSE(picked(100, 100'000, 3));  // 0.8 MB: a trifle, read whole whatever the left
  EXPECT_TRUE(picked(100'000'000, 10'000'000, 3));  // 80 MB: more than every rank may hold

  // explain() says why.
  const auto why = [](int64_t left_rows, int64_t right_rows) {
    return why_exchanged(*make_join(range_source(left_rows, 4), range_source(right_rows, 2), {"id"},
                                    JoinType::Inner),
                         3);
  };
  EXPECT_EQ(why(1'000'000, 2'000'000),
            "its right side's 15.3 MiB read by each of 3 ranks cost more than exchanging them "
            "with the left side's 7.6 MiB");
  EXPECT_EQ(why(100'000'000, 10'000'000),
            "its right side's 76.3 MiB are over what every rank may hold, 64.0 MiB");
}

TEST(PipelineMessage, AJoinNoRankCanReadWholeRunsAsAHashExchangeOfBothSides) {
  NodePtr left = make_filter(range_source(100, 4), tree(col("id") > 3));
  UdfSpec spec;
  spec.name = "label";
  spec.class_name = "Label";
  spec.return_type = int64();
  spec.stateful = true;
  NodePtr labelled = make_actor_pool_project(range_source(5, 1), std::make_shared<UdfSpec>(spec),
                                             {"id"}, {"id"}, "label");
  // Too large for every rank, or calling a UDF: picked, with the pipeline above it spreading.
  for (const NodePtr& right : {range_source(10'000'000, 4), labelled}) {
    NodePtr joined = make_join(left, right, {"id"}, JoinType::Full);
    NodePtr root = make_filter(joined, tree(col("id") % 2 == 0));
    EXPECT_EQ(pick_shuffled_join(*root, 3), joined.get());
    std::string why;
    EXPECT_TRUE(encode_first_pipeline(*root, &why).empty());  // not without its exchanges
  }
  // A small right side travels whole; a breaker on a side keeps the query on rank 0.
  EXPECT_EQ(pick_shuffled_join(*make_join(left, range_source(5, 1), {"id"}, JoinType::Inner), 3),
            nullptr);
  EXPECT_EQ(pick_shuffled_join(*make_join(make_limit(range_source(10'000'000, 4), 9),
                                          range_source(10'000'000, 4), {"id"}, JoinType::Inner),
                               3),
            nullptr);

  // Each side travels as its chain and the exchange it ends in.
  NodePtr right = make_project(range_source(10'000'000, 4),
                               {tree(col("id")), tree((col("id") * 10).alias("label"))});
  NodePtr joined = make_join(left, right, {"id"}, JoinType::Left);
  for (const NodePtr& side : joined->children) {
    std::string why;
    const std::string bytes = encode_join_side(*side, {"id"}, 4, &why);
    ASSERT_FALSE(bytes.empty()) << why;
    std::optional<JoinSideExchange> exchange;
    EXPECT_EQ(to_string(*decode_first_pipeline(bytes, nullptr, &exchange)), to_string(*side));
    ASSERT_TRUE(exchange.has_value());
    EXPECT_EQ(exchange->keys, std::vector<std::string>{"id"});
    EXPECT_EQ(exchange->per_rank, 4);
  }
  // The join then travels as the buckets each rank joins of its own.
  NodePtr root = make_filter(joined, tree(col("id") % 2 == 0));
  const ShuffledJoinRefs refs{joined.get(), 7, 8, 3, 4};
  std::string why;
  const std::string bytes = encode_first_pipeline(*root, &why, nullptr, nullptr, &refs);
  ASSERT_FALSE(bytes.empty()) << why;
  EXPECT_THROW(decode_first_pipeline(bytes), Error);  // a rank that keeps no buckets
  std::vector<uint64_t> asked;
  const ChainContext here{[&](uint64_t id) {
                            asked.push_back(id);
                            return std::make_shared<const JoinBuckets>();
                          },
                          2, 1 << 20};
  NodePtr again = decode_first_pipeline(bytes, &here);
  EXPECT_EQ(asked, (std::vector<uint64_t>{7, 8}));
  EXPECT_EQ(again->schema, root->schema);
  const auto& source = *static_cast<const SourceNode&>(again->child()).source;
  EXPECT_EQ(source.num_partitions(), 12);
  EXPECT_EQ(source.home_rank(5), 2);
  EXPECT_EQ(source.schema(), joined->schema);
}

TEST(PipelineMessage, ATableInMemoryTravelsWholeWithItsPartitionsAndNulls) {
  const Schema schema({{"a", int64()}, {"s", utf8()}, {"f", float64()}});
  Table t(schema,
          {Batch(schema, {Column::from(std::vector<std::optional<int64_t>>{1, {}, 3}),
                          Column::from(std::vector<std::optional<std::string>>{"x", "y", {}}),
                          Column::from(std::vector<double>{0.5, 1.5, 2.5})})});
  NodePtr table = make_source(std::make_shared<TableSource>(t, 2));
  std::string why;
  const std::string bytes = encode_first_pipeline(*table, &why);
  ASSERT_FALSE(bytes.empty()) << why;
  NodePtr again = decode_first_pipeline(bytes);
  const Source& source = *static_cast<const SourceNode&>(*again).source;
  ASSERT_EQ(source.num_partitions(), 2);
  EXPECT_EQ(source.schema(), schema);
  std::string rows;
  for (int p = 0; p < 2; ++p) {
    auto reader = source.open(p, 100);
    while (std::optional<Batch> b = reader->next())
      rows += "p" + std::to_string(p) + ":" + Table(schema, {*b}).to_string(10);
  }
  std::string want;
  for (int p = 0; p < 2; ++p) {
    auto reader = static_cast<const SourceNode&>(*table).source->open(p, 100);
    while (std::optional<Batch> b = reader->next())
      want += "p" + std::to_string(p) + ":" + Table(schema, {*b}).to_string(10);
  }
  EXPECT_EQ(rows, want);
}

/// An empty directory of this process's, named after `what`.
std::filesystem::path fresh_dir(const std::string& what) {
  auto dir = std::filesystem::temp_directory_path() /
             ("ember-pipeline-message-" + what + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

/// A Parquet file of `rows` rows (a, b: int64) in row groups of 10, in a fresh directory.
std::filesystem::path parquet_file(int64_t rows) {
  const auto dir = fresh_dir("parquet");
  const Schema schema({{"a", int64()}, {"b", int64()}});
  std::vector<int64_t> a, b;
  for (int64_t i = 0; i < rows; ++i) {
    a.push_back(i);
    b.push_back(i * 2);
  }
  ParquetWriteOptions groups;
  groups.row_group_rows = 10;
  auto writer = open_partition_writer(dir.string(), 0, schema, FileFormat::Parquet,
                                      FileWriteOptions{groups, {}});
  writer->write(Batch(schema, {Column::from(a), Column::from(b)}));
  writer->commit();
  return dir;
}

TEST(PipelineMessage, AParquetScanTravelsWithItsPrunedColumnsAndSkippedRowGroups) {
  const auto dir = parquet_file(50);
  auto scan = std::make_shared<ParquetSource>((dir / "*.parquet").string(), ParquetOptions{});
  ASSERT_EQ(scan->num_partitions(), 5);
  const ExprPtr predicate = tree(col("a") >= lit(int64_t{25}));
  auto narrowed = scan->with_columns({"a"})->with_filter(predicate);
  ASSERT_EQ(narrowed->num_partitions(), 3);  // row groups 0 and 1 ruled out by statistics
  NodePtr chain = make_filter(make_source(narrowed), predicate);
  std::string why;
  const std::string bytes = encode_first_pipeline(*chain, &why);
  ASSERT_FALSE(bytes.empty()) << why;
  NodePtr again = decode_first_pipeline(bytes);
  EXPECT_EQ(to_string(*again), to_string(*chain));
  const Source& source = *static_cast<const SourceNode&>(again->child()).source;
  EXPECT_EQ(source.num_partitions(), 3);
  EXPECT_EQ(source.schema(), Schema({{"a", int64()}}));
  // The same parts: partition 0 here is row group 2 there, rows 20..29.
  auto reader = source.open(0, 1000);
  const std::optional<Batch> first = reader->next();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->column(0).value<int64_t>(0), 20);
  EXPECT_GT(reader->bytes_read(), 0);
  std::filesystem::remove_all(dir);
}

TEST(PipelineMessage, AParquetScanTravelsWithTheStructFieldsItReads) {
  const auto dir = fresh_dir("struct");
  {
    ColumnBuilder a(int64()), b(utf8());
    for (int64_t i = 0; i < 10; ++i) {
      a.append(i);
      b.append("b" + std::to_string(i));
    }
    const Column s = Column::struct_of({{"a", a.finish()}, {"b", b.finish()}});
    const Schema schema({{"s", s.type()}});
    auto writer = open_partition_writer(dir.string(), 0, schema, FileFormat::Parquet,
                                        FileWriteOptions{ParquetWriteOptions{}, {}});
    writer->write(Batch(schema, {s}));
    writer->commit();
  }
  auto scan = std::make_shared<ParquetSource>((dir / "*.parquet").string(), ParquetOptions{});
  auto narrowed = scan->with_struct_fields({{"s", {"b"}}});
  ASSERT_NE(narrowed, nullptr);
  NodePtr chain = make_source(narrowed);
  std::string why;
  const std::string bytes = encode_first_pipeline(*chain, &why);
  ASSERT_FALSE(bytes.empty()) << why;
  NodePtr again = decode_first_pipeline(bytes);
  EXPECT_EQ(to_string(*again), to_string(*chain));
  const Source& source = *static_cast<const SourceNode&>(*again).source;
  EXPECT_EQ(source.schema().to_string(), "s: struct<b: utf8>");
  const std::optional<Batch> first = source.open(0, 1000)->next();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->column(0).field("b").get(3), Value("b3"));
  std::filesystem::remove_all(dir);
}

TEST(PipelineMessage, ACsvScanTravelsWithTheFilterItAppliesWhileParsing) {
  const auto dir = fresh_dir("csv");
  {
    std::ofstream csv(dir / "a.csv");
    csv << "x,name\n";
    for (int i = 0; i < 20; ++i) csv << i << ",n" << i << "\n";
  }
  auto scan = std::make_shared<CsvSource>((dir / "*.csv").string(), CsvOptions{});
  const ExprPtr predicate = tree(col("x") > lit(int64_t{14}));
  std::shared_ptr<const Source> filtered = scan->with_filter(predicate);
  ASSERT_NE(filtered, nullptr);
  NodePtr chain = make_filter(make_source(filtered), predicate);
  std::string why;
  const std::string bytes = encode_first_pipeline(*chain, &why);
  ASSERT_FALSE(bytes.empty()) << why;
  NodePtr again = decode_first_pipeline(bytes);
  // The same scan, parsing its other columns only where the filter holds.
  EXPECT_EQ(to_string(*again), to_string(*chain));
  const Source& source = *static_cast<const SourceNode&>(again->child()).source;
  EXPECT_NE(source.describe().find("parsed only where"), std::string::npos) << source.describe();
  auto reader = source.open(0, 100);
  const std::optional<Batch> rows = reader->next();
  ASSERT_TRUE(rows.has_value());
  EXPECT_EQ(rows->num_rows(), 5);
  EXPECT_EQ(reader->rows_dropped(), 15);
  std::filesystem::remove_all(dir);
}

TEST(PipelineMessage, ARankThatSeesOtherParquetFilesSaysSo) {
  const auto dir = parquet_file(20);
  auto scan = std::make_shared<ParquetSource>((dir / "*.parquet").string(), ParquetOptions{});
  std::string why;
  const std::string bytes = encode_first_pipeline(*make_source(scan), &why);
  ASSERT_FALSE(bytes.empty()) << why;
  std::filesystem::rename(dir / "part-00000.parquet", dir / "part-00001.parquet");
  try {
    decode_first_pipeline(bytes);
    FAIL() << "decoded over other files";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("every rank must see the same files"), std::string::npos)
        << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ember::dist
