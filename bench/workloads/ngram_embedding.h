// The cpu-heavy workload: a hashed character 3-gram embedding scored against a fixed vector.
#pragma once

#include <array>
#include <string_view>

#include "ember/ember.h"

namespace bench {

/// A stateful UDF whose "model" is a fixed 256-bucket weight vector. Per row: every character
/// 3-gram is hashed (CRC-32, as Python's zlib.crc32) into one of 256 buckets, the bucket counts
/// are L2-normalised and dotted with the weights, giving one float64 (0 for texts under 3 bytes).
/// Argument: one utf8 column. Result: float64 (null for null).
class NgramEmbedding {
 public:
  static constexpr int kBuckets = 256;
  explicit NgramEmbedding(const ember::InitArgs& args = {});
  /// The embedding score of one text; the baselines call this directly.
  double score(std::string_view text) const;
  ember::Column operator()(const ember::Batch& args) const;

 private:
  std::array<double, kBuckets> weights_{};
};

}  // namespace bench
