// cpu-heavy by hand: line ranges of the strings CSV, parsed and scored by each thread.
#include <charconv>
#include <memory>

#include "cpp_workloads.h"
#include "line_ranges.h"
#include "ngram_embedding.h"
#include "result_digest.h"
#include "thread_pool_limit.h"

namespace bench {

RunReport cpp_cpu_heavy(const WorkloadOptions& o, Strategy strategy) {
  RunReport report{system_name(strategy), o.workload, {}, "{}", ""};
  // One result slot per task, like a collected table: the digest is taken after the clock.
  std::vector<std::vector<std::pair<int64_t, double>>> results;
  report.times = time_runs(o.repeat, [&] {
    const std::vector<LineRange> ranges = split_lines(o.input, o.split_bytes);
    results.assign(ranges.size(), {});
    run_thread_pool(
        o.workers, static_cast<int>(ranges.size()), strategy == Strategy::PerPartition,
        [] { return std::make_unique<NgramEmbedding>(); },
        [&](const NgramEmbedding& model, int t) {
          const std::string text = read_range(o.input, ranges[static_cast<size_t>(t)]);
          auto& rows = results[static_cast<size_t>(t)];
          for_each_line(text, [&](std::string_view line) {
            const size_t comma = line.find(',');
            int64_t id = 0;
            std::from_chars(line.data(), line.data() + comma, id);
            rows.emplace_back(id, model.score(line.substr(comma + 1)));
          });
        });
  });
  ResultDigest d;
  for (const auto& rows : results)
    for (const auto& [id, score] : rows) d.add(id, score);
  report.check = d.to_json();
  return report;
}

}  // namespace bench
