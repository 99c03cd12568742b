// The example corpus: every WordNet gloss (Debian's wordnet-base) as one JSON-lines document.
#pragma once

#include <cstdint>
#include <string>

namespace spellcheck {

/// Where Debian's wordnet-base keeps its database.
inline constexpr const char* kWordnetDir = "/usr/share/wordnet";

/// Writes `files` JSON-lines files `docs-NN.jsonl` into `out_dir`, each line
/// {"id": N, "pos": "noun", "words": "...", "text": "<gloss>"}. Returns the documents written.
/// Throws std::runtime_error if the WordNet files are missing.
int64_t write_wordnet_corpus(const std::string& wordnet_dir, const std::string& out_dir, int files);

}  // namespace spellcheck
