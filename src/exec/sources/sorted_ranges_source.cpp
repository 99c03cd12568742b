// Cutting sorted runs into key ranges: splitter rows picked from an even sample of every run,
// each run cut before each splitter by binary search.
#include "exec/sources/sorted_ranges_source.h"

#include <algorithm>

#include "ember/error.h"
#include "exec/relational/run_merge.h"

namespace ember {

namespace {

/// Rows sampled per run to pick the splitters from.
constexpr int64_t kSamplesPerRun = 64;

struct Sample {
  size_t run;
  int64_t row;
  double weight;  ///< rows of its run it stands for
};

}  // namespace

SortedRangesSource::SortedRangesSource(Schema schema, std::vector<SortedRun> runs,
                                       std::vector<KeyOrder> order, int partitions,
                                       std::string label)
    : schema_(std::move(schema)), order_(std::move(order)), label_(std::move(label)) {
  for (SortedRun& r : runs)
    if (r.rows.num_rows() > 0) runs_.push_back(std::move(r));
  for (const SortedRun& r : runs_) rows_ += r.rows.num_rows();
  // Merged order: keys, then run, then row. Sorting the sample by it puts the splitters in
  // that order too, so the cuts of every run only move forward.
  auto before = [&](const Sample& a, const Sample& b) {
    const int c = compare_rows(runs_[a.run].keys, a.row, runs_[b.run].keys, b.row, order_);
    if (c != 0) return c < 0;
    return a.run != b.run ? a.run < b.run : a.row < b.row;
  };
  std::vector<Sample> sample;
  for (size_t r = 0; r < runs_.size(); ++r) {
    const int64_t n = runs_[r].rows.num_rows();
    const int64_t k = std::min(n, kSamplesPerRun);
    for (int64_t s = 0; s < k; ++s)
      sample.push_back({r, (2 * s + 1) * n / (2 * k), static_cast<double>(n) / k});
  }
  std::sort(sample.begin(), sample.end(), before);
  std::vector<int64_t> start(runs_.size(), 0);
  cuts_.push_back(start);
  double seen = 0;
  int next = 1;
  for (const Sample& s : sample) {
    seen += s.weight;
    if (next >= partitions || seen < static_cast<double>(rows_) * next / partitions) continue;
    std::vector<int64_t> cut = cut_before(s.run, s.row);
    if (cut != cuts_.back()) cuts_.push_back(std::move(cut));
    while (next < partitions && seen >= static_cast<double>(rows_) * next / partitions) ++next;
  }
  std::vector<int64_t> end;
  for (const SortedRun& r : runs_) end.push_back(r.rows.num_rows());
  if (cuts_.size() == 1 || cuts_.back() != end) cuts_.push_back(std::move(end));
}

std::vector<int64_t> SortedRangesSource::cut_before(size_t run, int64_t row) const {
  std::vector<int64_t> cut(runs_.size());
  for (size_t r = 0; r < runs_.size(); ++r) {
    if (r == run) {
      cut[r] = row;
      continue;
    }
    // The first row of run r that does not come before the splitter: a row with an equal key
    // comes before it when its run is earlier.
    int64_t lo = 0, hi = runs_[r].rows.num_rows();
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      const int c = compare_rows(runs_[r].keys, mid, runs_[run].keys, row, order_);
      if (c < 0 || (c == 0 && r < run))
        lo = mid + 1;
      else
        hi = mid;
    }
    cut[r] = lo;
  }
  return cut;
}

std::unique_ptr<BatchReader> SortedRangesSource::open(int p, int64_t batch_rows) const {
  if (p < 0 || p >= num_partitions())
    throw InvalidArgument(label_ + ": " + std::to_string(num_partitions()) +
                          " partitions, asked for " + std::to_string(p));
  std::vector<std::unique_ptr<RunChunks>> slices;
  const auto& from = cuts_[static_cast<size_t>(p)];
  const auto& to = cuts_[static_cast<size_t>(p) + 1];
  for (size_t r = 0; r < runs_.size(); ++r) {
    const int64_t n = to[r] - from[r];
    if (n == 0) continue;
    SortedRun slice;
    slice.rows = runs_[r].rows.slice(from[r], n);
    for (const Column& k : runs_[r].keys) slice.keys.push_back(k.slice(from[r], n));
    slices.push_back(std::make_unique<RunInMemory>(std::move(slice)));
  }
  return std::make_unique<RunMergeReader>(std::move(slices), order_, batch_rows);
}

std::string SortedRangesSource::describe() const {
  return label_ + " (" + std::to_string(rows_) + " rows in " + std::to_string(runs_.size()) +
         " sorted runs, " + std::to_string(num_partitions()) + " partitions)";
}

}  // namespace ember
