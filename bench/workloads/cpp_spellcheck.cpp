// spellcheck by hand: one task per corpus file, parsed with simdjson, one Speller per thread.
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "cpp_workloads.h"
#include "result_digest.h"
#include "speller.h"
#include "thread_pool_limit.h"

namespace bench {

namespace {

std::vector<std::string> corpus_files(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".jsonl") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw std::runtime_error("no *.jsonl files under " + dir);
  return files;
}

}  // namespace

RunReport cpp_spellcheck(const WorkloadOptions& o, Strategy strategy) {
  RunReport report{system_name(strategy), o.workload, {}, "{}", ""};
  const ember::InitArgs args{{"dict", std::string(spellcheck::kDefaultDictionary)}};
  std::vector<std::vector<std::pair<int64_t, int64_t>>> results;
  report.times = time_runs(o.repeat, [&] {
    const std::vector<std::string> files = corpus_files(o.input);
    results.assign(files.size(), {});
    run_thread_pool(
        o.workers, static_cast<int>(files.size()), strategy == Strategy::PerPartition,
        [&] { return std::make_unique<spellcheck::Speller>(args); },
        [&](spellcheck::Speller& speller, int t) {
          simdjson::dom::parser parser;
          simdjson::padded_string json =
              simdjson::padded_string::load(files[static_cast<size_t>(t)]);
          for (simdjson::dom::element doc : parser.parse_many(json)) {
            const int64_t id = doc["id"].get_int64();
            const std::string_view text = doc["text"].get_string();
            results[static_cast<size_t>(t)].emplace_back(id, speller.count_misspelled(text));
          }
        });
  });
  ResultDigest d;
  for (const auto& rows : results)
    for (const auto& [id, typos] : rows) d.add(id, static_cast<double>(typos), typos);
  report.check = d.to_json();
  return report;
}

}  // namespace bench
