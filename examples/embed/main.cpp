// The embedding job: the WordNet corpus as Parquet in, `id, embedding` as Parquet out.
//
//   embed WORK_DIR [--max-docs N] [--concurrency N] [--ranks N]     (embed --help: every option)
//
// First run: writes the corpus (WordNet glosses) to WORK_DIR/corpus as Parquet, by way of
// JSON-lines files in the build folder (embed-tmp/, removed once written). Then reads it,
// embeds every text with a stateful UDF (tables built once per actor), writes
// WORK_DIR/embeddings/part-*.parquet, and prints the count and the mean of the embeddings'
// means, which the test compares with DuckDB's `avg(list_avg(embedding))` over the output.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <string>

#include "command_line.h"
#include "ember/ember.h"
#include "hashed_ngrams.h"
#include "wordnet_corpus.h"

EMBER_REGISTER_UDF(embed::HashedNgrams);

int main(int argc, char** argv) {
  ember::init(argc, argv);
  std::string work;
  int64_t max_docs = -1;  // every document
  int concurrency = 2;
  int ranks = 1;
  CLI::App app{"Embed WordNet's glosses with ember: Parquet in, `id, embedding` as Parquet out."};
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("WORK_DIR", work,
                 "holds the corpus (WORK_DIR/corpus, written on first use) and the output "
                 "(WORK_DIR/embeddings)")
      ->type_name("DIR")
      ->required();
  app.add_option("--max-docs", max_docs, "embed only the documents with id < N (default: all)")
      ->type_name("N")
      ->check(examples::whole_number_at_least(1, INT64_MAX));
  app.add_option("--concurrency", concurrency, "actors in the embedding pool (>= 1)")
      ->type_name("N")
      ->check(examples::whole_number_at_least(1));
  examples::add_ranks_option(app, ranks);
  if (auto done = examples::parse_command_line(app, "embed", argc, argv)) return *done;
  if (auto failed = examples::run_on_ranks(ranks, "embed", argc, argv)) return *failed;
  try {
    namespace fs = std::filesystem;
    const std::string corpus = work + "/corpus";
    if (!fs::exists(corpus + "/_SUCCESS")) {
      // JSON lines first (the corpus writer's format), in the build folder, then Parquet.
      const fs::path jsonl =
          fs::path(examples::kBuildDir) / "embed-tmp" / ("corpus-" + std::to_string(getpid()));
      fs::remove_all(jsonl);
      spellcheck::write_wordnet_corpus(spellcheck::kWordnetDir, jsonl.string(), 4);
      ember::read_jsonl(jsonl.string() + "/*.jsonl")
          .select({ember::col("id"), ember::col("text")})
          .write_parquet(corpus);
      fs::remove_all(jsonl);
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
