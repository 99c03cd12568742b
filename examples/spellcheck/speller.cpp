// Tokenising text into words and asking Hunspell about each.
#include "speller.h"

#include <hunspell/hunspell.h>
#include <unistd.h>

#include <cctype>
#include <stdexcept>

EMBER_REGISTER_UDF(spellcheck::Speller);

namespace spellcheck {

namespace {

bool is_word_char(unsigned char c) { return std::isalpha(c) || c == '\''; }

}  // namespace

Speller::Speller(const ember::InitArgs& args) {
  std::string base = args.has("dict") ? args.get<std::string>("dict") : kDefaultDictionary;
  std::string aff = base + ".aff", dic = base + ".dic";
  if (access(aff.c_str(), R_OK) != 0 || access(dic.c_str(), R_OK) != 0)
    throw std::runtime_error("dictionary not found: " + aff + " / " + dic +
                             " (install Debian's hunspell-en-us)");
  dict_ = Hunspell_create(aff.c_str(), dic.c_str());
  if (!dict_) throw std::runtime_error("Hunspell could not load " + base);
}

Speller::~Speller() {
  if (dict_) Hunspell_destroy(dict_);
}

int64_t Speller::count_misspelled(std::string_view text) {
  int64_t typos = 0;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && !is_word_char(static_cast<unsigned char>(text[i]))) ++i;
    size_t start = i;
    bool ascii = true;
    while (i < text.size() && (is_word_char(static_cast<unsigned char>(text[i])) ||
                               static_cast<unsigned char>(text[i]) >= 0x80)) {
      ascii &= static_cast<unsigned char>(text[i]) < 0x80;
      ++i;
    }
    // Trim apostrophes at the edges ('tis, dogs') and skip single letters.
    size_t b = start, e = i;
    while (b < e && text[b] == '\'') ++b;
    while (e > b && text[e - 1] == '\'') --e;
    if (e - b < 2 || !ascii) continue;
    word_.assign(text.data() + b, e - b);
    if (Hunspell_spell(dict_, word_.c_str()) == 0) ++typos;
  }
  return typos;
}

ember::Column Speller::operator()(const ember::Batch& args) {
  const ember::Column& text = args.column(0);
  ember::ColumnBuilder out(ember::int64(), args.num_rows());
  for (int64_t r = 0; r < args.num_rows(); ++r) {
    if (text.is_null(r)) {
      out.append_null();
    } else {
      out.append(count_misspelled(text.value<std::string_view>(r)));
    }
  }
  return out.finish();
}

}  // namespace spellcheck
