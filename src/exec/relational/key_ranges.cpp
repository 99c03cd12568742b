// Key ranges: splitters at quantiles, cuts by binary search, the merge of a range's pieces.
#include "exec/relational/key_ranges.h"

#include <algorithm>

#include "exec/relational/column_gather.h"
#include "exec/relational/run_merge.h"
#include "exec/sources/merge_source.h"

namespace ember {

namespace {

std::vector<Column> key_columns(const Batch& batch, const RangeKeys& keys) {
  std::vector<Column> out;
  for (int c : keys.columns) out.push_back(batch.column(c));
  return out;
}

/// Rows sampled from each run: at most this many per range.
constexpr int64_t kSamplesPerRange = 256;

}  // namespace

Schema key_schema(const Schema& schema, const RangeKeys& keys) {
  std::vector<Field> fields;
  for (int c : keys.columns) fields.push_back(schema.field(c));
  return Schema(std::move(fields));
}

Batch range_splitters(const std::vector<TaggedRun>& runs, const Schema& schema,
                      const RangeKeys& keys, int parts) {
  const Schema splitter_schema = key_schema(schema, keys);
  // The sample: each run's rows at evenly spaced positions, each standing for its share of the
  // run's rows (every row of a short run).
  std::vector<Batch> sampled;
  std::vector<double> weight;
  for (const TaggedRun& run : runs) {
    const int64_t rows = run.rows.num_rows();
    if (rows == 0) continue;
    const int64_t n = std::min<int64_t>(rows, kSamplesPerRange * parts);
    std::vector<int64_t> at;
    for (int64_t i = 0; i < n; ++i) at.push_back(i * rows / n);
    std::vector<Column> cols;
    for (const Column& c : key_columns(run.rows, keys)) cols.push_back(gather(c, at));
    sampled.emplace_back(splitter_schema, std::move(cols));
    weight.insert(weight.end(), static_cast<size_t>(n),
                  static_cast<double>(rows) / static_cast<double>(n));
  }
  if (sampled.empty()) {
    std::vector<Column> none;
    for (const Field& f : splitter_schema.fields()) none.push_back(Column::nulls(f.type, 0));
    return Batch(splitter_schema, std::move(none));
  }
  const Batch sample = sampled.size() == 1 ? sampled[0] : Batch::concat(sampled);
  const std::vector<int64_t> order = sorted_rows(sample.columns(), sample.num_rows(), keys.order);
  double total = 0;
  for (double w : weight) total += w;
  // Walk the sample in key order; a range ends at the row where the weight passes its share.
  std::vector<int64_t> ends;
  double seen = 0;
  int next = 1;
  for (size_t i = 0; i < order.size() && next < parts; ++i) {
    seen += weight[static_cast<size_t>(order[i])];
    if (seen + 1e-9 < total * next / parts) continue;
    while (next < parts && seen + 1e-9 >= total * next / parts) ++next;
    const int64_t row = order[i];
    if (!ends.empty() &&
        compare_rows(sample.columns(), ends.back(), sample.columns(), row, keys.order) == 0)
      continue;  // equal keys share a range: a splitter repeated adds nothing
    ends.push_back(row);
  }
  // The last row of the sample ends no range: nothing lies above it to cut off.
  if (!ends.empty() && !order.empty() &&
      compare_rows(sample.columns(), ends.back(), sample.columns(), order.back(), keys.order) == 0)
    ends.pop_back();
  return gather(sample, ends);
}

std::vector<Batch> split_at_splitters(const Batch& sorted, const RangeKeys& keys,
                                      const Batch& splitters, int parts) {
  const std::vector<Column> sorted_keys = key_columns(sorted, keys);
  const std::vector<Column> cut_keys = splitters.columns();
  std::vector<Batch> out;
  int64_t from = 0;
  for (int j = 0; j < parts; ++j) {
    int64_t to = sorted.num_rows();
    if (j < splitters.num_rows()) {
      // The first row above splitter j: rows [from, to) are at most it.
      int64_t lo = from, hi = sorted.num_rows();
      while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (compare_rows(sorted_keys, mid, cut_keys, j, keys.order) <= 0)
          lo = mid + 1;
        else
          hi = mid;
      }
      to = lo;
    }
    out.push_back(sorted.slice(from, to - from));
    from = to;
  }
  return out;
}

std::shared_ptr<const Source> merge_key_ordered(const Schema& schema, const RangeKeys& keys,
                                                std::vector<TaggedRun> pieces, std::string label) {
  std::stable_sort(pieces.begin(), pieces.end(),
                   [](const TaggedRun& a, const TaggedRun& b) { return a.tag < b.tag; });
  std::vector<std::unique_ptr<RunChunks>> runs;
  int64_t rows = 0;
  for (TaggedRun& piece : pieces) {
    if (piece.rows.num_rows() == 0) continue;
    SortedRun run;
    run.keys = key_columns(piece.rows, keys);
    rows += piece.rows.num_rows();
    run.rows = std::move(piece.rows);
    runs.push_back(std::make_unique<RunInMemory>(std::move(run)));
  }
  return std::make_shared<MergeSource>(schema, std::move(runs), keys.order, rows, std::move(label));
}

Batch read_whole(const Source& source) {
  std::vector<Batch> pieces;
  for (int p = 0; p < source.num_partitions(); ++p) {
    std::unique_ptr<BatchReader> reader = source.open(p, 64 * 1024);
    while (std::optional<Batch> b = reader->next()) pieces.push_back(std::move(*b));
  }
  if (pieces.empty()) {
    std::vector<Column> none;
    for (const Field& f : source.schema().fields()) none.push_back(Column::nulls(f.type, 0));
    return Batch(source.schema(), std::move(none));
  }
  return pieces.size() == 1 ? pieces[0] : Batch::concat(pieces);
}

}  // namespace ember
