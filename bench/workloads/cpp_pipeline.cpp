// The pipeline by hand: each thread parses its line ranges, filters, projects, scores and writes
// its own part file.
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "cpp_workloads.h"
#include "line_ranges.h"
#include "ngram_embedding.h"
#include "output_digest.h"
#include "thread_pool_limit.h"

namespace bench {

namespace {

/// Appends "id,category,z,score\n" for one input line "id,category,x,y,text" that passes the
/// filter.
void process_line(std::string_view line, const NgramEmbedding& model, std::string& out) {
  std::string_view f[5];
  size_t pos = 0;
  for (int i = 0; i < 4; ++i) {
    const size_t c = line.find(',', pos);
    f[i] = line.substr(pos, c - pos);
    pos = c + 1;
  }
  f[4] = line.substr(pos);
  double x = 0;
  std::from_chars(f[2].data(), f[2].data() + f[2].size(), x);
  if (!(x < kMaxX) || f[1] == kSkippedCategory) return;
  int64_t y = 0;
  std::from_chars(f[3].data(), f[3].data() + f[3].size(), y);
  char num[64];
  out.append(f[0]).append(",").append(f[1]).append(",");
  out.append(num, std::to_chars(num, num + sizeof num, y * 2 + 1).ptr).append(",");
  out.append(num, std::to_chars(num, num + sizeof num, model.score(f[4])).ptr).append("\n");
}

void write_file(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot write " + path);
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) throw std::runtime_error("short write to " + path);
}

}  // namespace

RunReport cpp_pipeline(const WorkloadOptions& o, Strategy strategy) {
  RunReport report{system_name(strategy), o.workload, {}, "{}", ""};
  auto run = [&] {
    std::filesystem::create_directories(o.out);
    const std::vector<LineRange> ranges = split_lines(o.input, o.split_bytes);
    run_thread_pool(
        o.workers, static_cast<int>(ranges.size()), strategy == Strategy::PerPartition,
        [] { return std::make_unique<NgramEmbedding>(); },
        [&](const NgramEmbedding& model, int t) {
          const std::string text = read_range(o.input, ranges[static_cast<size_t>(t)]);
          std::string out = "id,category,z,score\n";
          for_each_line(text, [&](std::string_view line) { process_line(line, model, out); });
          char name[32];
          std::snprintf(name, sizeof name, "/part-%05d.csv", t);
          write_file(o.out + name, out);
        });
  };
  report.times = time_runs(o.repeat, run, [&] { std::filesystem::remove_all(o.out); });
  report.check = digest_pipeline_output(o.out).to_json();
  return report;
}

}  // namespace bench
