// Table and JSON-lines output of a benchmark run.
#include "bench_report.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <ctime>

namespace ember::bench {
namespace {

/// Three significant figures without switching to exponents for everyday magnitudes.
std::string figure(double v) {
  const double a = std::fabs(v);
  if (a >= 100) return fmt::format("{:.0f}", v);
  if (a >= 10) return fmt::format("{:.1f}", v);
  if (a >= 1) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3g}", v);
}

std::string spread(const Samples& s) {
  return fmt::format("[{}..{}]", figure(s.min()), figure(s.max()));
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<int>(c));
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string json_number(double v) { return std::isfinite(v) ? fmt::format("{:.6g}", v) : "null"; }

std::string met_text(const BenchRow& r) {
  if (!r.target) return "info";
  return r.target->met(r.ember.median(), r.baseline.median()) ? "yes" : "NO";
}

}  // namespace

bool Target::met(double ember, double baseline) const {
  double value = ember;
  if (measure == Measure::Ratio) value = baseline != 0 ? ember / baseline : INFINITY;
  if (measure == Measure::Overhead) value = ember - baseline;
  return at_most ? value <= limit : value >= limit;
}

std::string Target::describe(const std::string& unit) const {
  const char* op = at_most ? "<=" : ">=";
  switch (measure) {
    case Measure::Ratio:
      return fmt::format("ratio {} {}", op, figure(limit));
    case Measure::Ember:
      return fmt::format("ember {} {} {}", op, figure(limit), unit);
    case Measure::Overhead:
      return fmt::format("ember-base {} {} {}", op, figure(limit), unit);
  }
  return "";
}

double BenchRow::ratio() const {
  const double b = baseline.median();
  return b != 0 ? ember.median() / b : INFINITY;
}

BenchReport::BenchReport(std::string bench, const BenchOptions& options)
    : bench_(std::move(bench)), options_(options) {}

void BenchReport::add(BenchRow row) { rows_.push_back(std::move(row)); }
void BenchReport::note(std::string line) { notes_.push_back(std::move(line)); }
void BenchReport::fail(std::string what) { failures_.push_back(std::move(what)); }

int BenchReport::finish() const {
  print_table();
  append_json();
  return failures_.empty() ? 0 : 1;
}

void BenchReport::print_table() const {
  fmt::print("\n== {}{} ==\n", bench_, options_.quick ? " (--quick)" : "");
  fmt::print("{:<40} {:>5} {:>9} {:>19} {:>9} {:>19} {:>8}  {:<22} {}\n", "name", "unit", "ember",
             "ember [min..max]", "baseline", "base [min..max]", "ratio", "target", "met");
  for (const BenchRow& r : rows_) {
    fmt::print("{:<40} {:>5} {:>9} {:>19} {:>9} {:>19} {:>8}  {:<22} {}\n", r.name, r.unit,
               figure(r.ember.median()), spread(r.ember), figure(r.baseline.median()),
               spread(r.baseline), figure(r.ratio()), r.target ? r.target->describe(r.unit) : "-",
               met_text(r));
  }
  for (const std::string& n : notes_) fmt::print("  * {}\n", n);
  for (const std::string& f : failures_) fmt::print("  !! CHECK FAILED: {}\n", f);
  std::fflush(stdout);
}

void BenchReport::append_json() const {
  if (options_.json_path.empty()) return;
  std::FILE* f = std::fopen(options_.json_path.c_str(), "a");
  if (!f) {
    fmt::print(stderr, "cannot append to {}\n", options_.json_path);
    return;
  }
  const long now = static_cast<long>(std::time(nullptr));
  for (const BenchRow& r : rows_) {
    fmt::print(f,
               "{{\"bench\":{},\"name\":{},\"unit\":{},\"ember_median\":{},\"ember_min\":{},"
               "\"ember_max\":{},\"baseline_median\":{},\"baseline_min\":{},\"baseline_max\":{},"
               "\"ratio\":{},\"target\":{},\"met\":{},\"reps\":{},\"quick\":{},\"checks_ok\":{},"
               "\"nproc\":{},\"unix_time\":{}}}\n",
               json_string(bench_), json_string(r.name), json_string(r.unit),
               json_number(r.ember.median()), json_number(r.ember.min()),
               json_number(r.ember.max()), json_number(r.baseline.median()),
               json_number(r.baseline.min()), json_number(r.baseline.max()), json_number(r.ratio()),
               json_string(r.target ? r.target->describe(r.unit) : "info"),
               r.target ? (r.target->met(r.ember.median(), r.baseline.median()) ? "true" : "false")
                        : "null",
               r.ember.count(), options_.quick ? "true" : "false",
               failures_.empty() ? "true" : "false", sysconf(_SC_NPROCESSORS_ONLN), now);
  }
  std::fclose(f);
}

}  // namespace ember::bench
