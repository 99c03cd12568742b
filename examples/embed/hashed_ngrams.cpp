// The hashed-trigram embedding: FNV-1a over three folded bytes, seeded.
#include "hashed_ngrams.h"

#include <cctype>
#include <cmath>

namespace embed {

HashedNgrams::HashedNgrams(const ember::InitArgs& args)
    : seed_(static_cast<uint64_t>(args.has("seed") ? args.get<int64_t>("seed") : 7)) {
  for (int c = 0; c < 256; ++c)
    fold_[size_t(c)] = std::isalnum(c) ? static_cast<uint8_t>(std::tolower(c)) : ' ';
  uint64_t x = seed_ * 0x9E3779B97F4A7C15ull + 1;
  for (float& s : sign_) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;  // xorshift: the same signs on every machine
    s = (x & 1) ? 1.0f : -1.0f;
  }
}

std::vector<float> HashedNgrams::embed(std::string_view text) const {
  std::vector<float> v(kDimensions, 0.0f);
  uint8_t a = ' ', b = ' ';
  for (unsigned char ch : text) {
    const uint8_t c = fold_[ch];
    uint64_t h = 1469598103934665603ull ^ seed_;
    for (uint8_t byte : {a, b, c}) h = (h ^ byte) * 1099511628211ull;
    const size_t bucket = h % kDimensions;
    v[bucket] += sign_[bucket];
    a = b;
    b = c;
  }
  double norm = 0;
  for (float f : v) norm += double(f) * f;
  if (norm > 0) {
    const float inv = static_cast<float>(1.0 / std::sqrt(norm));
    for (float& f : v) f *= inv;
  }
  return v;
}

ember::Column HashedNgrams::operator()(const ember::Batch& in) const {
  const ember::Column& text = in.column(0);
  ember::ColumnBuilder out(ember::fixed_size_list(ember::float32(), kDimensions), in.num_rows());
  for (int64_t i = 0; i < in.num_rows(); ++i) {
    if (text.is_null(i)) {
      out.append_null();
      continue;
    }
    ember::List l{{}, ember::float32()};
    for (float f : embed(text.value<std::string_view>(i))) l.items.emplace_back(f);
    out.append_value(l);
  }
  return out.finish();
}

}  // namespace embed
