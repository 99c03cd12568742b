// A stateful UDF: a Hunspell dictionary loaded once per actor, counting misspelled words.
#pragma once

#include <string>

#include "ember/ember.h"

struct Hunhandle;

namespace spellcheck {

/// Init args: "dict" = dictionary path without extension (e.g. /usr/share/hunspell/en_US).
/// Argument: one utf8 column of text. Result: int64 count of misspelled words (null for null).
class Speller {
 public:
  explicit Speller(const ember::InitArgs& args);
  ~Speller();
  Speller(const Speller&) = delete;
  Speller& operator=(const Speller&) = delete;
  ember::Column operator()(const ember::Batch& args);
  /// Misspelled words of one text (for the tests and the summary).
  int64_t count_misspelled(std::string_view text);

 private:
  Hunhandle* dict_ = nullptr;
  std::string word_;
};

/// The default dictionary shipped by Debian's hunspell-en-us.
inline constexpr const char* kDefaultDictionary = "/usr/share/hunspell/en_US";

}  // namespace spellcheck
