// The main job: spell-check every WordNet gloss with a Hunspell dictionary loaded once per actor.
//
//   spellcheck [--concurrency N] [--batch-size N] [--corpus DIR] [--out DIR] [--progress]
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>

#include "ember/ember.h"
#include "speller.h"
#include "wordnet_corpus.h"

namespace {

struct Options {
  int concurrency = 2;
  int64_t batch_size = 512;
  int files = 16;
  std::string corpus = "build/spellcheck-corpus";
  std::string wordnet = spellcheck::kWordnetDir;
  std::string dict = spellcheck::kDefaultDictionary;
  std::string out;
  bool process = false;
  double cpus_per_actor = 1;
  int progress = -1;  // -1: when stderr is a terminal
};

void ensure_corpus(const Options& o) {
  namespace fs = std::filesystem;
  if (fs::exists(o.corpus) && !fs::is_empty(o.corpus)) return;
  int64_t docs = spellcheck::write_wordnet_corpus(o.wordnet, o.corpus, o.files);
  std::fprintf(stderr, "wrote %lld WordNet glosses into %d files under %s\n",
               static_cast<long long>(docs), o.files, o.corpus.c_str());
}

void print_summary(const ember::QueryResult& r, const Options& o) {
  const ember::UdfStats& s = r.stats.udfs.at(0);
  double secs = r.stats.wall_seconds;
  std::printf("\nDocuments with misspellings (first rows):\n%s\n", r.table.to_string(8).c_str());
  std::printf("documents processed   %lld\n", static_cast<long long>(s.rows));
  std::printf("with misspellings     %lld (%.1f%%)\n", static_cast<long long>(r.stats.rows_out),
              s.rows ? 100.0 * static_cast<double>(r.stats.rows_out) / static_cast<double>(s.rows) : 0.0);
  std::printf("wall time             %.2f s\n", secs);
  std::printf("throughput            %.0f documents/s\n", secs > 0 ? static_cast<double>(s.rows) / secs : 0.0);
  std::printf("udf '%s'          actors %d, inits %lld, batches %lld, init %.2f s, busy %.2f s\n",
              s.name.c_str(), s.actors, static_cast<long long>(s.inits),
              static_cast<long long>(s.batches), s.init_seconds, s.busy_seconds);
  std::printf("inits == concurrency  %s (%lld == %d): each dictionary was loaded once per actor\n",
              s.inits == o.concurrency ? "yes" : "NO", static_cast<long long>(s.inits), o.concurrency);
}

}  // namespace

int main(int argc, char** argv) {
  ember::init(argc, argv);
  Options o;
  CLI::App app{"Spell-check WordNet's glosses with ember: one Hunspell dictionary per actor."};
  app.add_option("--concurrency", o.concurrency, "actors in the speller pool")->check(CLI::PositiveNumber);
  app.add_option("--batch-size", o.batch_size, "documents per UDF call")->check(CLI::PositiveNumber);
  app.add_option("--cpus-per-actor", o.cpus_per_actor, "CPUs each actor holds (admission)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--corpus", o.corpus, "JSON-lines corpus directory (made from WordNet if empty)");
  app.add_option("--files", o.files, "files to split a new corpus into")->check(CLI::PositiveNumber);
  app.add_option("--wordnet", o.wordnet, "WordNet database directory");
  app.add_option("--dict", o.dict, "Hunspell dictionary, without .aff/.dic");
  app.add_option("--out", o.out, "also write the flagged documents as JSON lines here");
  app.add_flag("--process", o.process, "run each actor in its own worker process");
  app.add_flag("--progress,!--no-progress", o.progress, "progress bar (default: on a terminal)");
  CLI11_PARSE(app, argc, argv);

  try {
    ensure_corpus(o);
    auto speller = ember::Udf::cls<spellcheck::Speller>("speller")
                       .returns(ember::int64())
                       .init_args({{"dict", o.dict}})
                       .batch_size(o.batch_size)
                       .concurrency(o.concurrency)
                       .num_cpus(o.cpus_per_actor)
                       .isolation(o.process ? ember::Isolation::Process : ember::Isolation::Thread);
    auto df = ember::read_jsonl(o.corpus + "/*.jsonl")
                  .with_column("typos", speller(ember::col("text")))
                  .where(ember::col("typos") > ember::lit(int64_t{0}))
                  .select({ember::col("id"), ember::col("words"), ember::col("typos"), ember::col("text")});
    ember::RunOptions run;
    run.progress = o.progress < 0 ? isatty(STDERR_FILENO) == 1 : o.progress > 0;
    std::fprintf(stderr, "%s\n", df.explain(run).c_str());
    ember::QueryResult r = df.execute(run);
    print_summary(r, o);
    if (!o.out.empty()) {
      df.write_jsonl(o.out, run);
      std::printf("flagged documents written to %s/\n", o.out.c_str());
    }
  } catch (const ember::Error& e) {
    std::fprintf(stderr, "spellcheck: %s\n", e.what());
    return 1;
  }
  return 0;
}
