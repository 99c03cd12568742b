// The shared pieces of the cluster app's scenarios.
#include "kit.h"

#include <ember/ember.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "udfs.h"

namespace cluster_app {

namespace fs = std::filesystem;

ember::Udf triple(int actors, ember::InitArgs args) {
  return ember::Udf::cls<Triple>("triple")
      .returns(ember::int64())
      .init_args(std::move(args))
      .batch_size(100)
      .concurrency(actors);
}

/// actors_per_rank and inits_per_rank of every UDF, on stderr; false when inits differ from
/// actors on any rank or the actors do not add up to the pool.
bool check_stats(const ember::QueryStats& stats, const char* query) {
  bool ok = true;
  for (const ember::UdfStats& u : stats.udfs) {
    std::fprintf(stderr, "%s: udf '%s' actors per rank", query, u.name.c_str());
    int actors = 0;
    for (size_t r = 0; r < u.actors_per_rank.size(); ++r) {
      std::fprintf(stderr, " %d", u.actors_per_rank[r]);
      actors += u.actors_per_rank[r];
      ok = ok && u.inits_per_rank.at(r) == u.actors_per_rank[r];
    }
    std::fprintf(stderr, ", inits per rank");
    for (int64_t i : u.inits_per_rank) std::fprintf(stderr, " %lld", static_cast<long long>(i));
    std::fprintf(stderr, "\n");
    ok = ok && actors == u.actors && u.inits == u.actors;
  }
  return ok;
}

void write_inputs(const fs::path& dir) {
  fs::create_directories(dir / "csv");
  fs::create_directories(dir / "jsonl");
  for (int f = 0; f < 3; ++f) {
    std::ofstream csv(dir / "csv" / ("part" + std::to_string(f) + ".csv"));
    csv << "x,name\n";
    for (int i = 0; i < 400; ++i) {
      const int x = f * 1000 + i;
      if (i % 37 == 5)
        csv << ",row" << x << "\n";  // a null x
      else
        csv << x << ",row" << x << "\n";
    }
    std::ofstream jl(dir / "jsonl" / ("part" + std::to_string(f) + ".jsonl"));
    for (int i = 0; i < 300; ++i) {
      if (i % 41 == 3)
        jl << "{\"text\": null}\n";
      else
        jl << "{\"text\": \"" << std::string(static_cast<size_t>((i * 7 + f) % 23), 'a') << "\"}\n";
    }
  }
}

/// Partitions and rows per rank of a query, on stdout; false unless every rank ran some.
bool show_ranks(const char* query, const ember::QueryStats& stats) {
  bool every = !stats.ranks.empty();
  std::cout << query << ": partitions per rank";
  for (const ember::RankStats& r : stats.ranks) {
    std::cout << " " << r.partitions;
    every = every && r.partitions > 0 && r.rows > 0;
  }
  std::cout << ", rows per rank";
  for (const ember::RankStats& r : stats.ranks) std::cout << " " << r.rows;
  std::cout << (every ? ", every rank ran partitions" : ", NOT every rank ran partitions") << "\n";
  return every;
}

/// The line under explain()'s "Cluster partitions" heading: how the first pipeline's partitions
/// are spread, or why they stay on rank 0.
std::string explain_line(const std::string& text) {
  const auto at = text.find("== Cluster partitions ==\n");
  if (at == std::string::npos) return "(none)";
  const auto from = at + 25;
  return text.substr(from, text.find('\n', from) - from);
}

}  // namespace cluster_app
