// Hashing 3-grams into buckets and scoring the normalised counts.
#include "ngram_embedding.h"

#include <zlib.h>

#include <cmath>
#include <cstdint>

EMBER_REGISTER_UDF(bench::NgramEmbedding);

namespace bench {

NgramEmbedding::NgramEmbedding(const ember::InitArgs&) {
  // Integer arithmetic only, so that the Python baselines build bit-identical weights.
  for (uint64_t k = 0; k < kBuckets; ++k)
    weights_[k] = static_cast<double>((k * 2654435761ULL) % 2001) / 1000.0 - 1.0;
}

double NgramEmbedding::score(std::string_view text) const {
  if (text.size() < 3) return 0.0;
  std::array<int64_t, kBuckets> counts{};
  const auto* bytes = reinterpret_cast<const Bytef*>(text.data());
  for (size_t i = 0; i + 3 <= text.size(); ++i) ++counts[crc32(0, bytes + i, 3) & 0xff];
  // Summed in bucket order; adding a zero bucket changes nothing, so a baseline that only
  // visits the non-empty buckets in ascending order gets the same bits.
  double squares = 0, dot = 0;
  for (int k = 0; k < kBuckets; ++k) {
    squares += static_cast<double>(counts[k] * counts[k]);
    if (counts[k] != 0) dot += weights_[k] * static_cast<double>(counts[k]);
  }
  return dot / std::sqrt(squares);
}

ember::Column NgramEmbedding::operator()(const ember::Batch& args) const {
  const ember::Column& text = args.column(0);
  ember::ColumnBuilder out(ember::float64(), args.num_rows());
  for (int64_t r = 0; r < args.num_rows(); ++r) {
    if (text.is_null(r))
      out.append_null();
    else
      out.append(score(text.value<std::string_view>(r)));
  }
  return out.finish();
}

}  // namespace bench
