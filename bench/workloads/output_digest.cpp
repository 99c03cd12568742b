// Parses the written CSV files with from_chars (the writers use to_chars: exact round trip).
#include "output_digest.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "line_ranges.h"

namespace bench {

namespace {

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> f;
  size_t pos = 0;
  for (size_t c; (c = line.find(',', pos)) != std::string_view::npos; pos = c + 1)
    f.push_back(line.substr(pos, c - pos));
  f.push_back(line.substr(pos));
  return f;
}

template <class T>
T parse(std::string_view s, const std::string& file) {
  T v{};
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size())
    throw std::runtime_error(file + ": cannot parse '" + std::string(s) + "'");
  return v;
}

void digest_file(const std::string& file, ResultDigest& d) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  int id = -1, z = -1, score = -1;
  bool header = true;
  for_each_line(text, [&](std::string_view line) {
    auto f = split_fields(line);
    if (header) {
      for (int i = 0; i < static_cast<int>(f.size()); ++i) {
        if (f[i] == "id") id = i;
        if (f[i] == "z") z = i;
        if (f[i] == "score") score = i;
      }
      if (id < 0 || z < 0 || score < 0) throw std::runtime_error(file + ": no id, z, score header");
      header = false;
      return;
    }
    d.add(parse<int64_t>(f.at(id), file), parse<double>(f.at(score), file),
          parse<int64_t>(f.at(z), file));
  });
}

}  // namespace

ResultDigest digest_pipeline_output(const std::string& dir) {
  ResultDigest d;
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("part-", 0) != 0 || e.path().extension() != ".csv") continue;
    digest_file(e.path().string(), d);
    ++files;
  }
  if (files == 0) throw std::runtime_error("no part-*.csv files under " + dir);
  return d;
}

}  // namespace bench
