// A deterministic text embedding: character trigrams hashed into 384 signed buckets, then
// L2-normalised; a stand-in for a model that the example can run anywhere.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "ember/ember.h"

namespace embed {

inline constexpr int kDimensions = 384;

/// The stateful UDF: its constructor builds the tables (a byte normalisation table and a sign
/// per bucket, from `seed`) once per actor; each call embeds a batch of texts into
/// fixed_size_list(float32(), 384), null text giving a null embedding.
class HashedNgrams {
 public:
  explicit HashedNgrams(const ember::InitArgs& args);
  ember::Column operator()(const ember::Batch& in) const;
  /// The embedding of one text (384 floats).
  std::vector<float> embed(std::string_view text) const;

 private:
  std::array<uint8_t, 256> fold_{};        ///< lower-case letters and digits; the rest ' '
  std::array<float, kDimensions> sign_{};  ///< +1 or -1 per bucket
  uint64_t seed_ = 0;
};

}  // namespace embed
