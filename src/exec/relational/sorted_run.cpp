// Run building (concatenate, sort, gather) and a heap-based merge of runs.
#include "exec/relational/sorted_run.h"

#include <algorithm>
#include <queue>

#include "exec/relational/column_gather.h"
#include "expr/evaluate.h"

namespace ember {

namespace {

Batch concat_or_empty(const Schema& schema, const std::vector<Batch>& parts) {
  if (!parts.empty()) return Batch::concat(parts);
  std::vector<Column> empty;
  for (const Field& f : schema.fields()) empty.push_back(Column::nulls(f.type, 0));
  return Batch(schema, std::move(empty));
}

std::vector<Column> concat_keys(const std::vector<std::vector<Column>>& per_batch,
                                size_t num_keys) {
  std::vector<Column> out;
  for (size_t k = 0; k < num_keys; ++k) {
    std::vector<Column> pieces;
    for (const auto& b : per_batch) pieces.push_back(b[k]);
    out.push_back(pieces.size() == 1 ? pieces[0] : Column::concat(pieces));
  }
  return out;
}

}  // namespace

void RunBuilder::add(const Batch& batch) {
  if (batch.num_rows() == 0) return;
  std::vector<Column> keys;
  for (const auto& e : key_exprs_) keys.push_back(evaluate(*e, batch));
  batches_.push_back(batch);
  keys_.push_back(std::move(keys));
  rows_ += batch.num_rows();
}

SortedRun RunBuilder::finish(const std::vector<KeyOrder>& order, int64_t limit) {
  SortedRun run;
  if (batches_.empty()) {
    run.rows = concat_or_empty(schema_, {});
    return run;
  }
  std::vector<Column> keys = concat_keys(keys_, key_exprs_.size());
  std::vector<int64_t> idx = sorted_rows(keys, rows_, order, limit);
  run.rows = gather(batches_, idx);  // straight from the morsels: one copy
  for (const Column& k : keys) run.keys.push_back(gather(k, idx));
  batches_.clear();
  keys_.clear();
  rows_ = 0;
  return run;
}

SortedRun RunBuilder::finish_sorted() {
  SortedRun run;
  run.rows = concat_or_empty(schema_, batches_);
  if (!batches_.empty()) run.keys = concat_keys(keys_, key_exprs_.size());
  batches_.clear();
  keys_.clear();
  rows_ = 0;
  return run;
}

Batch merge_runs(const std::vector<SortedRun>& runs, const Schema& schema,
                 const std::vector<KeyOrder>& order, int64_t limit) {
  std::vector<Batch> parts;
  std::vector<int64_t> start{0};
  for (const auto& r : runs) {
    parts.push_back(r.rows);
    start.push_back(start.back() + r.rows.num_rows());
  }
  Batch all = concat_or_empty(schema, parts);
  int64_t want = all.num_rows();
  if (limit >= 0) want = std::min(want, limit);
  // Fixed-width keys without nulls compare as words (see order_words), row by row in place of
  // the columns: words[run][row * K + k].
  const size_t nkeys = order.size();
  std::vector<std::vector<uint64_t>> words(runs.size());
  bool by_words = nkeys > 0;
  for (size_t r = 0; r < runs.size() && by_words; ++r) {
    const int64_t n = runs[r].rows.num_rows();
    if (n == 0) continue;  // an empty run may have no key columns at all
    std::vector<uint64_t> key_words;
    words[r].resize(static_cast<size_t>(n) * nkeys);
    for (size_t k = 0; k < nkeys && by_words; ++k) {
      by_words = order_words(runs[r].keys[k], order[k].descending, n, key_words);
      for (int64_t i = 0; by_words && i < n; ++i)
        words[r][static_cast<size_t>(i) * nkeys + k] = key_words[static_cast<size_t>(i)];
    }
  }
  // Heap of (run, row): smallest key first, ties to the earlier run.
  using Cursor = std::pair<size_t, int64_t>;
  auto after = [&](const Cursor& a, const Cursor& b) {
    int c = 0;
    if (by_words) {
      const uint64_t* x = words[a.first].data() + static_cast<size_t>(a.second) * nkeys;
      const uint64_t* y = words[b.first].data() + static_cast<size_t>(b.second) * nkeys;
      for (size_t k = 0; k < nkeys && c == 0; ++k) c = x[k] < y[k] ? -1 : (y[k] < x[k] ? 1 : 0);
    } else {
      c = compare_rows(runs[a.first].keys, a.second, runs[b.first].keys, b.second, order);
    }
    return c != 0 ? c > 0 : a.first > b.first;
  };
  std::priority_queue<Cursor, std::vector<Cursor>, decltype(after)> heap(after);
  for (size_t r = 0; r < runs.size(); ++r)
    if (runs[r].rows.num_rows() > 0) heap.emplace(r, 0);
  std::vector<int64_t> idx;
  idx.reserve(static_cast<size_t>(want));
  while (!heap.empty() && static_cast<int64_t>(idx.size()) < want) {
    auto [r, row] = heap.top();
    heap.pop();
    idx.push_back(start[r] + row);
    if (row + 1 < runs[r].rows.num_rows()) heap.emplace(r, row + 1);
  }
  return gather(all, idx);
}

}  // namespace ember
