// Writing a generation with ember and checking it back with a parser of its own, so that the
// check does not trust the reader under test.
#include "output_generation.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "ember/ember.h"
#include "soak_udfs.h"

namespace ember::soak {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void damaged(const std::string& dir, const std::string& what) {
  throw std::runtime_error("output '" + dir + "' is damaged: " + what);
}

/// The part files of `dir` in name order; anything else in it is damage (a marker file that
/// the write protocol documents is allowed).
std::vector<fs::path> part_files(const std::string& dir) {
  std::vector<fs::path> parts;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name == "_SUCCESS") continue;
    if (name.rfind("part-", 0) != 0 || e.path().extension() != ".csv") {
      damaged(dir, "unexpected entry '" + name + "'");
    }
    parts.push_back(e.path());
  }
  std::sort(parts.begin(), parts.end());
  return parts;
}

/// Parses "a,b,c" of three integers; false when the line is not that.
bool parse_row(const std::string& line, int64_t (&v)[3]) {
  size_t at = 0;
  for (int i = 0; i < 3; ++i) {
    size_t used = 0;
    try {
      v[i] = std::stoll(line.substr(at), &used);
    } catch (const std::exception&) {
      return false;
    }
    at += used;
    if (i < 2 && (at >= line.size() || line[at] != ',')) return false;
    ++at;
  }
  return at >= line.size();
}

}  // namespace

Generation make_generation(int64_t gen) {
  return Generation{gen, 1000 + (gen * 7919) % 40000, 1 + static_cast<int>(gen % 8)};
}

void write_generation(const std::string& dir, const Generation& g, int64_t crash_per_mille,
                      int64_t sleep_us) {
  const Udf udf =
      crash_per_mille > 0
          ? Udf::cls<FlakyIncrement>("flaky").init_args({{"crash_per_mille", crash_per_mille}})
          : Udf::cls<SlowIncrement>("slow").init_args({{"sleep_us", sleep_us}});
  range(g.rows, g.parts)
      .with_column("gen", lit(g.gen))
      .with_column("y", udf.returns(int64())
                            .isolation(Isolation::Process)
                            .num_cpus(0)  // writes of several threads run at once
                            .batch_size(512)
                            .max_retries(3)(col("id")))
      .write_csv(dir);
}

std::optional<Generation> read_generation(const std::string& dir) {
  if (!fs::exists(dir)) return std::nullopt;
  const std::vector<fs::path> parts = part_files(dir);
  if (parts.empty()) damaged(dir, "no part files");
  std::optional<Generation> g;
  int64_t next_id = 0;
  for (const fs::path& p : parts) {
    std::ifstream in(p);
    std::string line;
    if (!std::getline(in, line) || line != "id,gen,y")
      damaged(dir, p.filename().string() + ": bad header");
    while (std::getline(in, line)) {
      int64_t v[3];
      if (!parse_row(line, v)) damaged(dir, p.filename().string() + ": bad row '" + line + "'");
      if (!g) g = make_generation(v[1]);
      if (v[1] != g->gen) {
        damaged(dir, "rows of generations " + std::to_string(g->gen) + " and " +
                         std::to_string(v[1]) + " mixed");
      }
      if (v[0] != next_id) {
        damaged(dir, "id " + std::to_string(v[0]) + " where " + std::to_string(next_id) +
                         " was expected (a row lost or duplicated)");
      }
      if (v[2] != v[0] + 1) damaged(dir, "y wrong for id " + std::to_string(v[0]));
      ++next_id;
    }
  }
  if (!g) damaged(dir, "no rows");
  if (next_id != g->rows) {
    damaged(dir, std::to_string(next_id) + " rows of generation " + std::to_string(g->gen) +
                     ", expected " + std::to_string(g->rows));
  }
  if (static_cast<int>(parts.size()) != g->parts) {
    damaged(dir,
            std::to_string(parts.size()) + " part files, expected " + std::to_string(g->parts));
  }
  return g;
}

std::string debris_beside(const std::string& dir) {
  const fs::path target = fs::absolute(dir).lexically_normal();
  std::string found;
  for (const fs::directory_entry& e : fs::directory_iterator(target.parent_path())) {
    if (e.path().filename() != target.filename()) found += e.path().filename().string() + " ";
  }
  return found;
}

}  // namespace ember::soak
