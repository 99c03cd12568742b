// The embedding job: the WordNet corpus as Parquet in, `id, embedding` as Parquet out.
//
//   embed WORK_DIR [--max-docs N] [--concurrency N]
//
// First run: writes the corpus (WordNet glosses) to WORK_DIR/corpus as Parquet. Then reads it,
// embeds every text with a stateful UDF (tables built once per actor), writes
// WORK_DIR/embeddings/part-*.parquet, and prints the count and the mean of the embeddings'
// means, which the test compares with DuckDB's `avg(list_avg(embedding))` over the output.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "ember/ember.h"
#include "hashed_ngrams.h"
#include "wordnet_corpus.h"

EMBER_REGISTER_UDF(embed::HashedNgrams);

int main(int argc, char** argv) {
  ember::init(argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: embed WORK_DIR [--max-docs N] [--concurrency N]\n");
    return 2;
  }
  const std::string work = argv[1];
  int64_t max_docs = -1;
  int concurrency = 2;
  for (int a = 2; a + 1 < argc; a += 2) {
    if (std::strcmp(argv[a], "--max-docs") == 0)
      max_docs = std::stoll(argv[a + 1]);
    else if (std::strcmp(argv[a], "--concurrency") == 0)
      concurrency = std::stoi(argv[a + 1]);
  }
  try {
    const std::string corpus = work + "/corpus";
    if (!std::filesystem::exists(corpus + "/_SUCCESS")) {
      spellcheck::write_wordnet_corpus(spellcheck::kWordnetDir, work + "/corpus-jsonl", 4);
      ember::read_jsonl(work + "/corpus-jsonl/*.jsonl")
          .select({ember::col("id"), ember::col("text")})
          .write_parquet(corpus);
    }
    auto embedder = ember::Udf::cls<embed::HashedNgrams>("hashed_ngrams")
                        .returns(ember::fixed_size_list(ember::float32(), embed::kDimensions))
                        .init_args({{"seed", int64_t{7}}})
                        .batch_size(256)
                        .concurrency(concurrency);
    ember::DataFrame docs = ember::read_parquet(corpus + "/*.parquet");
    if (max_docs >= 0) docs = docs.where(ember::col("id") < ember::lit(max_docs));
    docs.select({ember::col("id"), embedder(ember::col("text")).alias("embedding")})
        .write_parquet(work + "/embeddings");
    // The summary DuckDB checks: rows, and the mean over rows of each embedding's mean.
    const ember::Table out = ember::read_parquet(work + "/embeddings/*.parquet").collect();
    const ember::Column e = out.column("embedding");
    double total = 0;
    int64_t rows = 0;
    for (int64_t i = 0; i < e.size(); ++i) {
      if (e.is_null(i)) continue;
      const ember::Column items = e.list(i);
      double sum = 0;
      for (int64_t k = 0; k < items.size(); ++k) sum += items.value<float>(k);
      total += sum / double(items.size());
      ++rows;
    }
    std::printf("documents %lld\nmean %.12g\n", static_cast<long long>(out.num_rows()),
                rows ? total / double(rows) : 0.0);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "embed: %s\n", e.what());
    return 1;
  }
  return 0;
}
