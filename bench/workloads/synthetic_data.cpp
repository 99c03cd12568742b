// A SplitMix64 stream drives word choice, so every run writes the same bytes.
#include "synthetic_data.h"

#include <cstdio>
#include <stdexcept>

namespace bench {

namespace {

class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int64_t below(int64_t n) { return static_cast<int64_t>(next() % static_cast<uint64_t>(n)); }

 private:
  uint64_t state_;
};

constexpr const char* kSyllables[] = {
    "ka", "lo",  "mi",  "ren", "tas", "ve", "qu", "zor", "ip", "sum",  "dol", "or",  "sit", "am",
    "et", "con", "sec", "tur", "ad",  "el", "it", "sed", "do", "eius", "mod", "tem", "por"};
constexpr int kSyllableCount = sizeof kSyllables / sizeof kSyllables[0];

void append_text(std::string& out, Random& rng, int64_t min_len, int64_t max_len) {
  const int64_t target = min_len + rng.below(max_len - min_len + 1);
  const size_t start = out.size();
  while (static_cast<int64_t>(out.size() - start) < target) {
    if (out.size() > start) out += ' ';
    for (int64_t s = 1 + rng.below(3); s > 0; --s) out += kSyllables[rng.below(kSyllableCount)];
  }
  out.resize(start + static_cast<size_t>(target));
  while (out.back() == ' ') out.back() = 'a';  // no trailing blank a reader might trim
}

class OutFile {
 public:
  explicit OutFile(const std::string& path) : path_(path), f_(std::fopen(path.c_str(), "wb")) {
    if (!f_) throw std::runtime_error("cannot write " + path);
  }
  ~OutFile() {
    if (f_) std::fclose(f_);
  }
  void write(const std::string& s) {
    if (std::fwrite(s.data(), 1, s.size(), f_) != s.size())
      throw std::runtime_error("short write to " + path_);
  }
  void close() {
    if (std::fclose(f_) != 0) throw std::runtime_error("cannot close " + path_);
    f_ = nullptr;
  }

 private:
  std::string path_;
  std::FILE* f_;
};

}  // namespace

void write_strings_csv(const std::string& path, int64_t rows, uint64_t seed) {
  Random rng(seed);
  OutFile out(path);
  std::string buf = "id,text\n";
  for (int64_t id = 0; id < rows; ++id) {
    buf += std::to_string(id);
    buf += ',';
    append_text(buf, rng, 80, 160);
    buf += '\n';
    if (buf.size() > (1 << 20)) out.write(buf), buf.clear();
  }
  out.write(buf);
  out.close();
}

int64_t write_pipeline_csv(const std::string& path, int64_t bytes, uint64_t seed) {
  Random rng(seed);
  OutFile out(path);
  std::string buf = "id,category,x,y,text\n";
  int64_t written = 0, id = 0;
  char num[64];
  for (; written + static_cast<int64_t>(buf.size()) < bytes; ++id) {
    std::snprintf(num, sizeof num, "%lld,cat_%02lld,0.%06lld,%lld,", static_cast<long long>(id),
                  static_cast<long long>(rng.below(16)), static_cast<long long>(rng.below(1000000)),
                  static_cast<long long>(rng.below(100000) - 50000));
    buf += num;
    append_text(buf, rng, 40, 120);
    buf += '\n';
    if (buf.size() > (1 << 20))
      written += static_cast<int64_t>(buf.size()), out.write(buf), buf.clear();
  }
  out.write(buf);
  out.close();
  return id;
}

}  // namespace bench
