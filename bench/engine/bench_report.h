// The result table every engine benchmark prints, and its JSON-lines twin.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench_options.h"
#include "sample_stats.h"

namespace ember::bench {

/// What a row must achieve, on the medians.
struct Target {
  enum class Measure {
    Ratio,     ///< ember / baseline
    Ember,     ///< ember alone (an absolute figure in the row's unit)
    Overhead,  ///< ember - baseline (the cost ember adds on top of the baseline)
  };
  Measure measure = Measure::Ratio;
  bool at_most = true;  ///< true: value <= limit; false: value >= limit
  double limit = 0;

  static Target ratio_at_most(double l) { return {Measure::Ratio, true, l}; }
  static Target ratio_at_least(double l) { return {Measure::Ratio, false, l}; }
  static Target ember_at_most(double l) { return {Measure::Ember, true, l}; }
  static Target overhead_at_most(double l) { return {Measure::Overhead, true, l}; }

  bool met(double ember, double baseline) const;
  /// E.g. "ratio <= 1.5", "ember <= 5 us", "ember-base <= 5 us".
  std::string describe(const std::string& unit) const;
};

/// One measured quantity: ember and its same-run baseline, over the same repetitions.
struct BenchRow {
  std::string name;
  std::string unit;  ///< of both ember and baseline: "s", "MB/s", "us", "MB"
  Samples ember;
  Samples baseline;
  std::optional<Target> target;  ///< none: reported for information

  double ratio() const;
};

/// Collects rows, notes and failed checks; prints the table and appends JSON lines.
class BenchReport {
 public:
  BenchReport(std::string bench, const BenchOptions& options);

  void add(BenchRow row);
  /// A line printed under the table (what the baseline is, what was checked).
  void note(std::string line);
  /// Records a failed correctness check (ember and baseline disagree): the run fails.
  void fail(std::string what);
  /// Prints the table, appends the JSON lines; returns the process exit code (1 on a failed
  /// check, 0 otherwise: an unmet target is a finding, not an error).
  int finish() const;

 private:
  void print_table() const;
  void append_json() const;

  std::string bench_;
  BenchOptions options_;
  std::vector<BenchRow> rows_;
  std::vector<std::string> notes_;
  std::vector<std::string> failures_;
};

}  // namespace ember::bench
