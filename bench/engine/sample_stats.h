// Repeated measurements of one quantity, summarised by their median and spread.
#pragma once

#include <vector>

namespace ember::bench {

/// The values of one quantity over repetitions. Medians resist the noise of a shared machine
/// better than means; min and max show how noisy the run was.
class Samples {
 public:
  Samples() = default;
  explicit Samples(std::vector<double> values) : values_(std::move(values)) {}

  void add(double v) { values_.push_back(v); }
  bool empty() const { return values_.empty(); }
  int count() const { return static_cast<int>(values_.size()); }
  /// Middle value (mean of the two middle ones for an even count); 0 when empty.
  double median() const;
  double min() const;
  double max() const;
  /// Every value multiplied by `factor` (unit changes: seconds to microseconds, etc.).
  Samples scaled(double factor) const;
  /// `numerator / value` for every value (durations to rates: bytes / seconds).
  Samples rates(double numerator) const;

 private:
  std::vector<double> values_;
};

}  // namespace ember::bench
