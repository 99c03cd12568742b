// The main job: spell-check every WordNet gloss with a Hunspell dictionary loaded once per actor.
//
//   spellcheck [--concurrency N] [--batch-size N] [--corpus DIR] [--out DIR] [--progress]
//              [--session]
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <utility>
#include <vector>

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
  bool session = false;
  double cpus_per_actor = 1;
  int progress = -1;  // -1: when stderr is a terminal
};

/// Accepts a whole number from `min` up to INT_MAX. CLI11's own range check prints its bounds as
/// 300-digit doubles, so the message is ours: "expected a whole number >= 1, got '0'".
CLI::Validator whole_number_at_least(int min) {
  const std::string rule = "a whole number >= " + std::to_string(min);
  return CLI::Validator(
      [rule, min](std::string& text) -> std::string {
        int v = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec == std::errc::result_out_of_range)
          return "expected " + rule + ", got '" + text + "' (too large)";
        if (ec != std::errc() || end != text.data() + text.size() || v < min)
          return "expected " + rule + ", got '" + text + "'";
        return {};
      },
      "");
}

/// Accepts a finite decimal number >= 0 (CPUs may be fractional: 0.5 shares one CPU).
CLI::Validator non_negative_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double v = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || v < 0)
          return "expected a number >= 0, got '" + text + "'";
        return {};
      },
      "");
}

/// One line for a command-line mistake, in this program's terms rather than CLI11's.
std::string describe(const CLI::ParseError& e, const CLI::App& app) {
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    std::string unknown;
    for (const std::string& arg : app.remaining()) unknown += (unknown.empty() ? "" : " ") + arg;
    return "unexpected argument" + std::string(app.remaining().size() == 1 ? " " : "s ") + unknown;
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) {
    // "--batch-size: 1 required INT missing" -> "--batch-size needs a value"
    const std::string what = e.what();
    return what.substr(0, what.find(':')) + " needs a value";
  }
  if (dynamic_cast<const CLI::ConversionError*>(&e)) {
    // "Could not convert: --progress = maybe" -> "--progress: 'maybe' is not a valid value"
    const std::string what = e.what();
    const size_t name = what.find("--"), eq = what.find(" = ");
    if (name != std::string::npos && eq != std::string::npos && eq > name)
      return what.substr(name, eq - name) + ": '" + what.substr(eq + 3) + "' is not a valid value";
  }
  return e.what();
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
  if (s.inits_per_rank.size() > 1) {  // under mpirun (./run.sh --ranks N)
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
      fs::temp_directory_path() / ("spellcheck-quarters-" + std::to_string(getpid()));
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
  app.add_option("--concurrency", o.concurrency, "actors in the speller pool (>= 1)")
      ->check(whole_number_at_least(1));
  app.add_option("--batch-size", o.batch_size, "documents per UDF call (>= 1)")
      ->check(whole_number_at_least(1));
  app.add_option("--cpus-per-actor", o.cpus_per_actor,
                 "CPUs each actor holds (admission; >= 0, may be fractional)")
      ->check(non_negative_number());
  // ./run.sh names its corpus through the environment, so a --corpus given to it still wins.
  app.add_option("--corpus", o.corpus, "JSON-lines corpus directory (made from WordNet if empty)")
      ->envname("SPELLCHECK_CORPUS");
  app.add_option("--files", o.files, "files to split a new corpus into (>= 1)")
      ->check(whole_number_at_least(1));
  app.add_option("--wordnet", o.wordnet, "WordNet database directory");
  app.add_option("--dict", o.dict, "Hunspell dictionary, without .aff/.dic");
  app.add_option("--out", o.out, "also write the flagged documents as JSON lines here");
  app.add_flag("--process", o.process, "run each actor in its own worker process");
  app.add_flag("--session", o.session,
               "run four queries (a quarter of the files each) in one session: warm actors");
  app.add_flag("--progress,!--no-progress", o.progress, "progress bar (default: on a terminal)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::fprintf(stderr, "spellcheck: %s (see --help)\n", describe(e, app).c_str());
    return 2;
  }

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
