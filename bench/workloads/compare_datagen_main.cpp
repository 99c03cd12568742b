// Writes the benchmark inputs: strings CSV, pipeline CSV, WordNet spellcheck corpus.
//   compare_datagen strings --rows N --out FILE
//   compare_datagen pipeline --bytes N --out FILE
//   compare_datagen spell-corpus --out DIR [--files 16] [--keep K]
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <filesystem>

#include "synthetic_data.h"
#include "wordnet_corpus.h"

namespace {

/// Writes the full corpus, then removes all but the first `keep` files (a subset for --quick).
int64_t spell_corpus(const std::string& out, int files, int keep) {
  std::filesystem::remove_all(out);
  int64_t docs = spellcheck::write_wordnet_corpus(spellcheck::kWordnetDir, out, files);
  for (int k = keep; k < files; ++k) {
    char name[32];
    std::snprintf(name, sizeof name, "/docs-%02d.jsonl", k);
    std::filesystem::remove(out + name);
  }
  return keep < files ? -1 : docs;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Generates bench/compare's inputs (deterministic)."};
  app.require_subcommand(1);
  std::string out;
  int64_t rows = 1000000, bytes = int64_t{1} << 30;
  int files = 16, keep = 16;
  auto* strings = app.add_subcommand("strings", "id,text CSV for cpu-heavy");
  strings->add_option("--rows", rows)->check(CLI::PositiveNumber);
  strings->add_option("--out", out)->required();
  auto* pipeline = app.add_subcommand("pipeline", "id,category,x,y,text CSV for pipeline");
  pipeline->add_option("--bytes", bytes)->check(CLI::PositiveNumber);
  pipeline->add_option("--out", out)->required();
  auto* corpus = app.add_subcommand("spell-corpus", "WordNet glosses as JSON lines");
  corpus->add_option("--out", out)->required();
  corpus->add_option("--files", files)->check(CLI::PositiveNumber);
  corpus->add_option("--keep", keep, "keep only the first K files")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  try {
    if (*strings) {
      bench::write_strings_csv(out, rows, 42);
      std::printf("%lld\n", static_cast<long long>(rows));
    } else if (*pipeline) {
      std::printf("%lld\n", static_cast<long long>(bench::write_pipeline_csv(out, bytes, 7)));
    } else {
      std::printf("%lld\n", static_cast<long long>(spell_corpus(out, files, keep)));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "compare_datagen: %s\n", e.what());
    return 1;
  }
  return 0;
}
