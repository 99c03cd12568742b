// The main job: spell-check every WordNet gloss with a Hunspell dictionary loaded once per actor.
//
//   spellcheck [--concurrency N] [--batch-size N] [--corpus DIR] [--out DIR] [--progress]
//              [--session] [--ranks N]     (spellcheck --help lists every option)
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <utility>
#include <vector>

#include "command_line.h"
#include "ember/ember.h"
#include "speller.h"
#include "wordnet_corpus.h"

namespace {

struct Options {
  int concurrency = 2;
  int64_t batch_size = 512;
  int files = 16;
  std::string corpus;  // given: an existing corpus; empty: the default one, made when missing
  std::string wordnet = spellcheck::kWordnetDir;
  std::string dict = spellcheck::kDefaultDictionary;
  std::string out;
  bool process = false;
  bool session = false;
  double cpus_per_actor = 1;
  int progress = -1;  // -1: when stderr is a terminal
  int ranks = 1;
};

/// The corpus used without --corpus, made from WordNet on first use: SPELLCHECK_CORPUS, else
/// spellcheck-corpus in the build folder.
std::string default_corpus() {
  const char* chosen = std::getenv("SPELLCHECK_CORPUS");
  if (chosen != nullptr && *chosen != '\0') return chosen;
  return std::string(examples::kBuildDir) + "/spellcheck-corpus";
}

/// The library's advice names Udf setters; here the knobs are command-line options.
std::string in_cli_terms(std::string message) {
  const std::pair<const char*, const char*> renames[] = {{".concurrency()", "--concurrency"},
                                                         {".num_cpus()", "--cpus-per-actor"}};
  for (const auto& [method, option] : renames) {
    for (size_t at = message.find(method); at != std::string::npos; at = message.find(method))
      message.replace(at, std::string_view(method).size(), option);
  }
  return message;
}

/// Makes the default corpus when it is missing or empty; a corpus named by --corpus is the
/// user's, never written (parsing has checked that it exists).
void ensure_corpus(const Options& o, bool is_default) {
  namespace fs = std::filesystem;
  if (!is_default || (fs::exists(o.corpus) && !fs::is_empty(o.corpus))) return;
  int64_t docs = spellcheck::write_wordnet_corpus(o.wordnet, o.corpus, o.files);
  std::fprintf(stderr, "wrote %lld WordNet glosses into %d files under %s\n",
               static_cast<long long>(docs), o.files, o.corpus.c_str());
}

void print_summary(const ember::QueryResult& r, const Options& o) {
  const ember::UdfStats& s = r.stats.udfs.at(0);
  double secs = r.stats.wall_seconds;
  std::printf("\nDocuments with misspellings (first rows):\n%s\n", r.table.to_string(8).c_str());
  std::printf("documents processed   %lld\n", static_cast<long long>(s.rows));
  std::printf(
      "with misspellings     %lld (%.1f%%)\n", static_cast<long long>(r.stats.rows_out),
      s.rows ? 100.0 * static_cast<double>(r.stats.rows_out) / static_cast<double>(s.rows) : 0.0);
  std::printf("wall time             %.2f s\n", secs);
  std::printf("throughput            %.0f documents/s\n",
              secs > 0 ? static_cast<double>(s.rows) / secs : 0.0);
  std::printf("udf '%s'          actors %d, inits %lld, batches %lld, init %.2f s, busy %.2f s\n",
              s.name.c_str(), s.actors, static_cast<long long>(s.inits),
              static_cast<long long>(s.batches), s.init_seconds, s.busy_seconds);
  std::printf("inits == concurrency  %s (%lld == %d): each dictionary was loaded once per actor\n",
              s.inits == o.concurrency ? "yes" : "NO", static_cast<long long>(s.inits),
              o.concurrency);
  if (s.inits_per_rank.size() > 1) {  // under mpirun (--ranks N)
    std::printf("inits per rank       ");
    for (size_t rank = 0; rank < s.inits_per_rank.size(); ++rank)
      std::printf("%s rank %zu: %lld", rank ? "," : "", rank,
                  static_cast<long long>(s.inits_per_rank[rank]));
    std::printf("\n");
    // Each rank scans and checks its own share of the corpus files.
    std::printf("partitions per rank  ");
    for (const ember::RankStats& rank : r.stats.ranks)
      std::printf("%s rank %d: %lld (%lld rows)", rank.rank ? "," : "", rank.rank,
                  static_cast<long long>(rank.partitions), static_cast<long long>(rank.rows));
    std::printf("\n");
  }
}

/// --session: four queries, one per quarter of the corpus files, in one ember::Session, so the
/// dictionaries are loaded once for the whole run rather than once per query. Each quarter is
/// a directory of links to its files (a glob cannot name an arbitrary subset).
int run_in_session(const ember::Udf& speller, const ember::RunOptions& base, const Options& o) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(o.corpus))
    if (e.path().extension() == ".jsonl") files.push_back(fs::absolute(e.path()));
  std::sort(files.begin(), files.end());
  const fs::path quarters =
      fs::path(examples::kBuildDir) / "spellcheck-tmp" / ("session-" + std::to_string(getpid()));
  fs::remove_all(quarters);
  constexpr size_t kQueries = 4;
  ember::Session session;
  ember::RunOptions run = base;
  run.session = &session;
  int64_t docs = 0, flagged = 0, inits = 0;
  size_t queries = 0;
  double secs = 0;
  for (size_t q = 0; q < kQueries; ++q) {
    const fs::path dir = quarters / ("q" + std::to_string(q));
    fs::create_directories(dir);
    for (size_t i = q; i < files.size(); i += kQueries)
      fs::create_symlink(files[i], dir / files[i].filename());
    if (fs::is_empty(dir)) continue;
    ember::QueryResult r = ember::read_jsonl(dir.string() + "/*.jsonl")
                               .with_column("typos", speller(ember::col("text")))
                               .where(ember::col("typos") > ember::lit(int64_t{0}))
                               .execute(run);
    const ember::UdfStats& s = r.stats.udfs.at(0);
    std::printf("query %zu: %lld documents, %lld with misspellings, inits %lld, %.2f s\n", q + 1,
                static_cast<long long>(s.rows), static_cast<long long>(r.stats.rows_out),
                static_cast<long long>(s.inits), r.stats.wall_seconds);
    ++queries;
    docs += s.rows;
    flagged += r.stats.rows_out;
    inits += s.inits;
    secs += r.stats.wall_seconds;
  }
  fs::remove_all(quarters);
  const ember::SessionStats st = session.stats();
  std::printf("documents processed   %lld in %zu queries, one session\n",
              static_cast<long long>(docs), queries);
  std::printf("with misspellings     %lld (%.1f%%)\n", static_cast<long long>(flagged),
              docs ? 100.0 * static_cast<double>(flagged) / static_cast<double>(docs) : 0.0);
  std::printf("wall time             %.2f s\n", secs);
  std::printf("session               %d warm actors, %lld inits, %lld reuses\n", st.actors,
              static_cast<long long>(st.inits), static_cast<long long>(st.reuses));
  std::printf(
      "inits == concurrency  %s (%lld == %d): each dictionary was loaded once per actor for the "
      "whole run\n",
      inits == o.concurrency ? "yes" : "NO", static_cast<long long>(inits), o.concurrency);
  return inits == o.concurrency ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  ember::init(argc, argv);
  Options o;
  CLI::App app{"Spell-check WordNet's glosses with ember: one Hunspell dictionary per actor."};
  // An option given twice takes its last value, as most command-line tools do.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  using examples::non_negative_number, examples::whole_number_at_least;
  app.add_option("--concurrency", o.concurrency, "actors in the speller pool (>= 1)")
      ->type_name("N")
      ->check(whole_number_at_least(1));
  app.add_option("--batch-size", o.batch_size, "documents per UDF call (>= 1)")
      ->type_name("N")
      ->check(whole_number_at_least(1));
  app.add_option("--cpus-per-actor", o.cpus_per_actor,
                 "CPUs each actor holds (admission; >= 0, may be fractional)")
      ->type_name("CPUS")
      ->check(non_negative_number());
  const std::string made_corpus = default_corpus();
  app.add_option("--corpus", o.corpus,
                 "an existing JSON-lines corpus directory (default: " + made_corpus +
                     ", made from WordNet when missing; SPELLCHECK_CORPUS names another)")
      ->type_name("DIR")
      ->check(CLI::Validator(CLI::ExistingDirectory).description(""));
  app.add_option("--files", o.files, "files to split a new corpus into (>= 1)")
      ->type_name("N")
      ->check(whole_number_at_least(1));
  app.add_option("--wordnet", o.wordnet, "WordNet database directory")->type_name("DIR");
  app.add_option("--dict", o.dict, "Hunspell dictionary, without .aff/.dic")->type_name("PATH");
  app.add_option("--out", o.out, "also write the flagged documents as JSON lines here")
      ->type_name("DIR");
  app.add_flag("--process", o.process, "run each actor in its own worker process");
  app.add_flag("--session", o.session,
               "run four queries (a quarter of the files each) in one session: warm actors");
  app.add_flag("--progress,!--no-progress", o.progress, "progress bar (default: on a terminal)");
  examples::add_ranks_option(app, o.ranks);
  if (auto done = examples::parse_command_line(app, "spellcheck", argc, argv)) return *done;
  if (auto failed = examples::run_on_ranks(o.ranks, "spellcheck", argc, argv)) return *failed;
  const bool default_corpus_used = o.corpus.empty();
  if (default_corpus_used) o.corpus = made_corpus;

  try {
    ensure_corpus(o, default_corpus_used);
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
                  .select({ember::col("id"), ember::col("words"), ember::col("typos"),
                           ember::col("text")});
    ember::RunOptions run;
    run.progress = o.progress < 0 ? isatty(STDERR_FILENO) == 1 : o.progress > 0;
    if (o.session) return run_in_session(speller, run, o);
    std::fprintf(stderr, "%s\n", df.explain(run).c_str());
    ember::QueryResult r = df.execute(run);
    print_summary(r, o);
    if (!o.out.empty()) {
      df.write_jsonl(o.out, {}, run);
      std::printf("flagged documents written to %s/\n", o.out.c_str());
    }
  } catch (const ember::Error& e) {
    std::fprintf(stderr, "spellcheck: %s\n", in_cli_terms(e.what()).c_str());
    return 1;
  } catch (const std::exception& e) {  // writing the corpus: WordNet missing, disk full
    std::fprintf(stderr, "spellcheck: %s\n", e.what());
    return 1;
  }
  return 0;
}
