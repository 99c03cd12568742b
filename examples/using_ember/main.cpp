// Using ember: a stateful UDF that reads its init args and its argument column and builds its
// result, run by an actor pool of threads, then of worker processes.
#include <ember/ember.h>

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// Counts the words of at least `min_length` letters in each text. The constructor is where a
// real UDF loads its model or dictionary: it runs once per actor, not once per batch.
struct LongWords {
  explicit LongWords(const ember::InitArgs& args) : min_length(args.get<int64_t>("min_length")) {}

  ember::Column operator()(const ember::Batch& in) const {  // one column per argument
    const ember::Column& text = in.column(0);
    std::vector<std::optional<int64_t>> counts;
    for (int64_t row = 0; row < in.num_rows(); ++row) {
      if (text.is_null(row)) {
        counts.push_back(std::nullopt);  // null in, null out
      } else {
        counts.push_back(count(text.value<std::string_view>(row)));
      }
    }
    return ember::Column::from(std::move(counts));  // in.num_rows() int64 values
  }

  int64_t count(std::string_view text) const {
    int64_t words = 0, letters = 0;
    for (size_t i = 0; i <= text.size(); ++i) {
      if (i < text.size() && text[i] != ' ') {
        ++letters;
        continue;
      }
      if (letters >= min_length) ++words;
      letters = 0;
    }
    return words;
  }

  int64_t min_length;
};
EMBER_REGISTER_UDF(LongWords);  // lets worker processes construct it by name

int main(int argc, char** argv) {
  ember::init(argc, argv);  // first: a worker process serves its actor here, then exits
  ember::Table docs = ember::Table::from_columns(
      {{"text",
        ember::Column::from(std::vector<std::optional<std::string>>{
            "the quick brown fox", std::nullopt, "jumps over the extraordinarily lazy dog"})}});
  std::vector<std::string> results;
  for (ember::Isolation isolation : {ember::Isolation::Thread, ember::Isolation::Process}) {
    auto long_words = ember::Udf::cls<LongWords>("long_words")
                          .returns(ember::int64())
                          .init_args({{"min_length", int64_t{5}}})
                          .batch_size(512)
                          .concurrency(2)
                          .num_cpus(0.5)
                          .isolation(isolation);
    ember::QueryResult r = ember::from_table(docs, 2)
                               .with_column("long_words", long_words(ember::col("text")))
                               .execute();
    std::printf("%s\ninits: %lld\n", r.table.to_string().c_str(),
                static_cast<long long>(r.stats.udfs[0].inits));
    results.push_back(r.table.to_string());
  }
  return results[0] == results[1] ? 0 : 1;  // both isolations give the same table
}
