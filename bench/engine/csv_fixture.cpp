// Writes the benchmark CSV with std::to_chars into a large buffer: generation must not dominate
// a benchmark run on a small machine.
#include "csv_fixture.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace ember::bench {
namespace {

constexpr std::array<std::string_view, 16> kWords = {
    "amber", "birch",   "cedar",   "delta", "ember", "fjord",  "grove",  "heath",
    "inlet", "juniper", "kestrel", "larch", "maple", "nectar", "osprey", "pine"};

/// SplitMix64: a well-mixed, reproducible value per row id.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// Appends one row at `out`; returns the end. `out` must have room for 96 bytes.
char* write_row(char* out, int64_t id) {
  const uint64_t h = mix(static_cast<uint64_t>(id));
  char* end = out + 96;
  out = std::to_chars(out, end, id).ptr;
  *out++ = ',';
  out = std::to_chars(out, end, static_cast<double>(h % 1'000'000) / 1000.0).ptr;
  *out++ = ',';
  out = std::to_chars(out, end, static_cast<int64_t>((h >> 20) % 1'000'000) - 500'000).ptr;
  *out++ = ',';
  const std::string_view w = kWords[(h >> 40) % kWords.size()];
  for (char c : w) *out++ = c;
  *out++ = '\n';
  return out;
}

/// Writes rows until the file reaches `target_bytes`; returns the data rows written.
int64_t generate(const std::string& path, int64_t target_bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot create " + path);
  std::vector<char> buf(size_t{4} << 20);
  const std::string_view header = "id,a,b,s\n";
  size_t used = header.copy(buf.data(), header.size());
  int64_t written = 0, rows = 0;
  while (written + static_cast<int64_t>(used) < target_bytes) {
    used = static_cast<size_t>(write_row(buf.data() + used, rows++) - buf.data());
    if (used + 96 > buf.size()) {
      if (std::fwrite(buf.data(), 1, used, f) != used) {
        std::fclose(f);
        throw std::runtime_error("cannot write " + path + " (disk full?)");
      }
      written += static_cast<int64_t>(used);
      used = 0;
    }
  }
  const bool ok = std::fwrite(buf.data(), 1, used, f) == used && std::fclose(f) == 0;
  if (!ok) throw std::runtime_error("cannot write " + path + " (disk full?)");
  return rows;
}

}  // namespace

CsvFixture ensure_csv_fixture(const std::string& dir, int64_t target_bytes) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  CsvFixture fx;
  fx.path = fmt::format("{}/bench-{}MiB.csv", dir, target_bytes >> 20);
  const std::string meta = fx.path + ".meta";
  std::error_code ec;
  const auto size = fs::file_size(fx.path, ec);
  if (!ec) {
    std::ifstream in(meta);
    int64_t bytes = -1, rows = -1;
    if (in >> bytes >> rows && bytes == static_cast<int64_t>(size) && bytes >= target_bytes) {
      fx.bytes = bytes;
      fx.rows = rows;
      return fx;
    }
  }
  const std::string tmp = fx.path + ".partial";
  fx.rows = generate(tmp, target_bytes);
  fs::rename(tmp, fx.path);
  fx.bytes = static_cast<int64_t>(fs::file_size(fx.path));
  std::ofstream(meta) << fx.bytes << ' ' << fx.rows << '\n';
  return fx;
}

}  // namespace ember::bench
