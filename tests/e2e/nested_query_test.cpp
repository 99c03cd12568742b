// Queries over the newer types: explode, list functions, and stateful UDFs that take and
// return every type (embeddings included), on threads and in worker processes.
#include <gtest/gtest.h>

#include <optional>

#include "ember/ember.h"

using namespace ember;

namespace {

using Words = std::vector<std::optional<std::string>>;

Table docs() {
  return Table::from_columns({{"id", Column::from(std::vector<int64_t>{1, 2, 3, 4, 5})},
                              {"words", Column::from(std::vector<std::optional<Words>>{
                                            Words{"a", "b"}, std::nullopt, Words{},
                                            Words{"c", std::nullopt}, Words{"d"}})}});
}

/// A 4-float embedding per text (bytes folded into buckets), a list of its words' lengths, its
/// bytes as binary, its first byte's code as a timestamp and its length less one as a date:
/// one result column per init arg.
struct Features {
  explicit Features(const InitArgs& a) : what(a.get<std::string>("what")) {}
  Column operator()(const Batch& in) const {
    const Column& text = in.column(0);
    ColumnBuilder out(type_for(what), in.num_rows());
    for (int64_t i = 0; i < in.num_rows(); ++i) {
      if (text.is_null(i)) {
        out.append_null();
        continue;
      }
      const std::string_view s = text.value<std::string_view>(i);
      if (what == "embedding") {
        List l{{0.0f, 0.0f, 0.0f, 0.0f}, float32()};
        for (unsigned char ch : s) std::get<float>(l.items[ch % 4]) += 1.0f;
        out.append_value(l);
      } else if (what == "bytes") {
        out.append_value(std::vector<uint8_t>(s.begin(), s.end()));
      } else if (what == "day") {
        out.append(Date{int32_t(s.size()) - 1});
      } else {
        out.append(Timestamp{s.empty() ? 0 : int64_t{static_cast<unsigned char>(s[0])}});
      }
    }
    return out.finish();
  }
  static DataType type_for(const std::string& what) {
    if (what == "embedding") return fixed_size_list(float32(), 4);
    if (what == "day") return date32();
    return what == "bytes" ? binary() : timestamp_us();
  }
  std::string what;
};
EMBER_REGISTER_UDF(Features);

/// Sums each embedding (fixed_size_list<float32, 4>) into a float32: a list argument.
struct EmbeddingSum {
  explicit EmbeddingSum(const InitArgs&) {}
  Column operator()(const Batch& in) const {
    const Column& e = in.column(0);
    std::vector<std::optional<float>> out;
    for (int64_t i = 0; i < e.size(); ++i) {
      if (e.is_null(i)) {
        out.emplace_back();
        continue;
      }
      const Column items = e.list(i);
      float s = 0;
      for (int64_t k = 0; k < items.size(); ++k) s += items.value<float>(k);
      out.emplace_back(s);
    }
    return Column::from(std::move(out));
  }
};
EMBER_REGISTER_UDF(EmbeddingSum);

}  // namespace

TEST(NestedQuery, ExplodeGivesOneRowPerItemAndDropsNullAndEmptyLists) {
  const Table t = from_table(docs(), 2).explode("words").collect();
  ASSERT_EQ(t.schema().to_string(), "id: int64, words: utf8");
  ASSERT_EQ(t.num_rows(), 5);
  const std::vector<int64_t> ids{1, 1, 4, 4, 5};
  for (int64_t r = 0; r < 5; ++r) EXPECT_EQ(t.column("id").value<int64_t>(r), ids[size_t(r)]);
  EXPECT_EQ(t.column("words").get(1), Value(std::string("b")));
  EXPECT_TRUE(t.column("words").is_null(3)) << "a null item is still a row";
  EXPECT_THROW(from_table(docs()).explode("id"), TypeError);
  EXPECT_THROW(from_table(docs()).explode("nope"), InvalidArgument);
}

TEST(NestedQuery, ListFunctionsAndExplodeCompose) {
  const Table t = from_table(docs())
                      .with_column("n", col("words").list_size())
                      .with_column("first", col("words").list_get(0))
                      .where(col("n") > lit(int64_t{0}))
                      .explode("words")
                      .select({col("id"), col("first"), col("words")})
                      .collect();
  ASSERT_EQ(t.num_rows(), 5);
  EXPECT_EQ(t.column("first").get(3), Value(std::string("c")));
}

TEST(NestedQuery, UdfsReturnAndTakeEveryTypeOnThreadsAndProcesses) {
  const Table input = Table::from_columns(
      {{"text",
        Column::from(std::vector<std::optional<std::string>>{"abcd", std::nullopt, "zz", ""})}});
  for (Isolation iso : {Isolation::Thread, Isolation::Process}) {
    SCOPED_TRACE(iso == Isolation::Thread ? "threads" : "processes");
    auto features = [&](const std::string& what) {
      return Udf::cls<Features>("features_" + what)
          .returns(Features::type_for(what))
          .init_args({{"what", what}})
          .batch_size(3)
          .isolation(iso);
    };
    auto sum =
        Udf::cls<EmbeddingSum>("embedding_sum").returns(float32()).batch_size(2).isolation(iso);
    const Table t = from_table(input, 2)
                        .with_column("embedding", features("embedding")(col("text")))
                        .with_column("bytes", features("bytes")(col("text")))
                        .with_column("when", features("time")(col("text")))
                        .with_column("day", features("day")(col("text")))
                        .with_column("total", sum(col("embedding")))
                        .collect();
    ASSERT_EQ(t.num_rows(), 4);
    EXPECT_EQ(t.column("embedding").type(), fixed_size_list(float32(), 4));
    EXPECT_EQ(t.column("embedding").get(0), Value(List{{1.0f, 1.0f, 1.0f, 1.0f}, float32()}));
    EXPECT_TRUE(t.column("embedding").is_null(1));
    EXPECT_EQ(t.column("total").get(2), Value(2.0f));
    EXPECT_EQ(t.column("total").get(3), Value(0.0f));
    EXPECT_EQ(t.column("bytes").get(2), Value(std::vector<uint8_t>{'z', 'z'}));
    EXPECT_EQ(t.column("when").get(0), Value(Timestamp{'a'}));
    EXPECT_EQ(t.column("day").get(0), Value(Date{3}));
    EXPECT_EQ(t.column("day").get(3), Value(Date{-1}));
    EXPECT_TRUE(t.column("day").is_null(1));
  }
}

TEST(NestedQuery, AListResultDeclaredFixedSizeIsConverted) {
  auto f = Udf::fn("pairs", [](const Batch& in) {
    std::vector<std::vector<float>> out(static_cast<size_t>(in.num_rows()), {1.0f, 2.0f});
    return Column::from(std::move(out));
  });
  const Table t =
      range(3).with_column("v", f.returns(fixed_size_list(float32(), 2))(col("id"))).collect();
  EXPECT_EQ(t.column("v").type(), fixed_size_list(float32(), 2));
  auto wrong = f.returns(fixed_size_list(float32(), 3));
  EXPECT_THROW(range(3).with_column("v", wrong(col("id"))).collect(), UdfError);
}
