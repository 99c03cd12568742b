// Key ranges: splitters at quantiles, cuts by binary search, the merge of a range's pieces.
#include "exec/relational/key_ranges.h"

#include <algorithm>

#include "exec/relational/run_merge.h"
#include "exec/sources/merge_source.h"

namespace ember {

namespace {

std::vector<Column> key_columns(const Batch& batch, int keys) {
  std::vector<Column> out;
  for (int k = 0; k < keys; ++k) out.push_back(batch.column(k));
  return out;
}

Schema key_schema(const Schema& schema, int keys) {
  std::vector<Field> fields;
  for (int k = 0; k < keys; ++k) fields.push_back(schema.field(k));
  return Schema(std::move(fields));
}

}  // namespace

Batch range_splitters(const Batch& sorted, int keys, const std::vector<KeyOrder>& order,
                      int parts) {
  const int64_t rows = sorted.num_rows();
  std::vector<int64_t> ends;  // the last row of each range but the last
  const std::vector<Column> sorted_keys = key_columns(sorted, keys);
  for (int j = 1; j < parts && rows > 0; ++j) {
    const int64_t end = rows * j / parts - 1;
    if (end < 0) continue;
    // Equal keys share a range: a splitter repeated adds nothing.
    if (!ends.empty() && compare_rows(sorted_keys, ends.back(), sorted_keys, end, order) == 0)
      continue;
    ends.push_back(end);
  }
  std::vector<Batch> picked;
  for (int64_t end : ends) picked.push_back(sorted.slice(end, 1));
  const Schema schema = key_schema(sorted.schema(), keys);
  if (picked.empty()) {
    std::vector<Column> none;
    for (int k = 0; k < keys; ++k) none.push_back(sorted.column(k).slice(0, 0));
    return Batch(schema, std::move(none));
  }
  const Batch all = Batch::concat(picked);
  return Batch(schema, key_columns(all, keys));
}

std::vector<Batch> split_at_splitters(const Batch& sorted, int keys,
                                      const std::vector<KeyOrder>& order, const Batch& splitters,
                                      int parts) {
  const std::vector<Column> sorted_keys = key_columns(sorted, keys);
  const std::vector<Column> cut_keys = key_columns(splitters, keys);
  std::vector<Batch> out;
  int64_t from = 0;
  for (int j = 0; j < parts; ++j) {
    int64_t to = sorted.num_rows();
    if (j < splitters.num_rows()) {
      // The first row above splitter j: rows [from, to) are at most it.
      int64_t lo = from, hi = sorted.num_rows();
      while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (compare_rows(sorted_keys, mid, cut_keys, j, order) <= 0)
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

std::shared_ptr<const Source> merge_key_ordered(const Schema& schema, int keys,
                                                const std::vector<KeyOrder>& order,
                                                std::vector<Batch> pieces, std::string label) {
  std::vector<std::unique_ptr<RunChunks>> runs;
  int64_t rows = 0;
  for (Batch& batch : pieces) {
    if (batch.num_rows() == 0) continue;
    SortedRun run;
    run.keys = key_columns(batch, keys);
    rows += batch.num_rows();
    run.rows = std::move(batch);
    runs.push_back(std::make_unique<RunInMemory>(std::move(run)));
  }
  return std::make_shared<MergeSource>(schema, std::move(runs), order, rows, std::move(label));
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
