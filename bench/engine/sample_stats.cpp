// Median and range of repeated measurements.
#include "sample_stats.h"

#include <algorithm>

namespace ember::bench {

double Samples::median() const {
  if (values_.empty()) return 0;
  std::vector<double> v = values_;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

double Samples::min() const {
  return values_.empty() ? 0 : *std::min_element(values_.begin(), values_.end());
}

double Samples::max() const {
  return values_.empty() ? 0 : *std::max_element(values_.begin(), values_.end());
}

Samples Samples::scaled(double factor) const {
  std::vector<double> v = values_;
  for (double& x : v) x *= factor;
  return Samples(std::move(v));
}

Samples Samples::rates(double numerator) const {
  std::vector<double> v = values_;
  for (double& x : v) x = x > 0 ? numerator / x : 0;
  return Samples(std::move(v));
}

}  // namespace ember::bench
