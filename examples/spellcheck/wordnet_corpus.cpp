// Extracts synset glosses from WordNet's data.* files.
#include "wordnet_corpus.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace spellcheck {

namespace {

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) continue;
        out += c;
    }
  }
  return out;
}

/// The synset's words: fields 4.. of a data line, `w_cnt` (hex) word/lex_id pairs.
std::string synset_words(const std::string& head) {
  std::vector<std::string> f;
  size_t i = 0;
  while (i < head.size()) {
    size_t j = head.find(' ', i);
    if (j == std::string::npos) j = head.size();
    if (j > i) f.push_back(head.substr(i, j - i));
    i = j + 1;
  }
  if (f.size() < 4) return "";
  int count = std::stoi(f[3], nullptr, 16);
  std::string words;
  for (int w = 0; w < count && 4 + 2 * w < static_cast<int>(f.size()); ++w) {
    std::string word = f[static_cast<size_t>(4 + 2 * w)];
    for (auto& c : word)
      if (c == '_') c = ' ';
    words += (words.empty() ? "" : ", ") + word;
  }
  return words;
}

}  // namespace

int64_t write_wordnet_corpus(const std::string& wordnet_dir, const std::string& out_dir,
                             int files) {
  std::filesystem::create_directories(out_dir);
  std::vector<std::ofstream> outs;
  for (int k = 0; k < files; ++k) {
    char name[32];
    std::snprintf(name, sizeof name, "docs-%02d.jsonl", k);
    outs.emplace_back(std::filesystem::path(out_dir) / name);
  }
  int64_t id = 0;
  for (const char* pos : {"noun", "verb", "adj", "adv"}) {
    std::string path = wordnet_dir + "/data." + pos;
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path + " (install Debian's wordnet-base)");
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == ' ') continue;  // the licence header
      size_t bar = line.find(" | ");
      if (bar == std::string::npos) continue;
      std::string gloss = line.substr(bar + 3);
      while (!gloss.empty() && gloss.back() == ' ') gloss.pop_back();
      // Round-robin: every file gets a similar mix of nouns, verbs, adjectives and adverbs.
      outs[static_cast<size_t>(id % files)]
          << "{\"id\": " << id << ", \"pos\": \"" << pos << "\", \"words\": \""
          << json_escape(synset_words(line.substr(0, bar))) << "\", \"text\": \""
          << json_escape(gloss) << "\"}\n";
      ++id;
    }
  }
  for (auto& o : outs) {
    o.flush();
    if (!o) throw std::runtime_error("failed writing the corpus into " + out_dir);
  }
  return id;
}

}  // namespace spellcheck
