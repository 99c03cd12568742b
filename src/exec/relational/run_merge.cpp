// The streaming merge: a heap of runs by their current row. An output batch takes, from each
// run, a contiguous slice of its current chunk (a merge consumes every run in order), so it is
// built as one gather from those slices into merge order. A batch ends
// early when a run's chunk runs out, and that run's next chunk is read before the next batch.
#include "exec/relational/run_merge.h"

#include <algorithm>

#include "exec/relational/column_gather.h"

namespace ember {

RunMergeReader::RunMergeReader(std::vector<std::unique_ptr<RunChunks>> runs,
                               std::vector<KeyOrder> order, int64_t batch_rows)
    : runs_(std::move(runs)),
      order_(std::move(order)),
      batch_rows_(std::max<int64_t>(1, batch_rows)),
      cursors_(runs_.size()) {}

bool RunMergeReader::load(size_t r) {
  Cursor& c = cursors_[r];
  for (;;) {
    std::optional<SortedRun> chunk = runs_[r]->next();
    if (!chunk) {
      c = Cursor{};
      return false;
    }
    if (chunk->rows.num_rows() == 0) continue;
    c.chunk = std::move(*chunk);
    c.row = 0;
    // Keys that have order words compare as words; any other chunk compares its columns.
    const int64_t n = c.chunk.rows.num_rows();
    const size_t nkeys = order_.size();
    c.words.assign(static_cast<size_t>(n) * nkeys, 0);
    std::vector<uint64_t> key_words;
    bool by_words = nkeys > 0;
    for (size_t k = 0; k < nkeys && by_words; ++k) {
      by_words = order_words(c.chunk.keys[k], order_[k].descending, n, key_words);
      for (int64_t i = 0; by_words && i < n; ++i)
        c.words[static_cast<size_t>(i) * nkeys + k] = key_words[static_cast<size_t>(i)];
    }
    if (!by_words) c.words.clear();
    return true;
  }
}

bool RunMergeReader::after(size_t a, size_t b) const {
  const Cursor& x = cursors_[a];
  const Cursor& y = cursors_[b];
  int c = 0;
  if (!x.words.empty() && !y.words.empty()) {
    // Words order rows exactly as compare_rows does, so chunks with and without them mix.
    const size_t nkeys = order_.size();
    const uint64_t* wx = x.words.data() + static_cast<size_t>(x.row) * nkeys;
    const uint64_t* wy = y.words.data() + static_cast<size_t>(y.row) * nkeys;
    for (size_t k = 0; k < nkeys && c == 0; ++k) c = wx[k] < wy[k] ? -1 : (wy[k] < wx[k] ? 1 : 0);
  } else {
    c = compare_rows(x.chunk.keys, x.row, y.chunk.keys, y.row, order_);
  }
  return c != 0 ? c > 0 : a > b;
}

void RunMergeReader::push(size_t r) {
  heap_.push_back(r);
  std::push_heap(heap_.begin(), heap_.end(), [this](size_t a, size_t b) { return after(a, b); });
}

size_t RunMergeReader::pop() {
  std::pop_heap(heap_.begin(), heap_.end(), [this](size_t a, size_t b) { return after(a, b); });
  const size_t r = heap_.back();
  heap_.pop_back();
  return r;
}

std::optional<Batch> RunMergeReader::next() {
  if (!started_) {
    started_ = true;
    for (size_t r = 0; r < runs_.size(); ++r)
      if (load(r)) push(r);
  }
  if (heap_.empty()) return std::nullopt;
  const size_t nruns = runs_.size();
  std::vector<int64_t> first(nruns, -1), taken(nruns, 0);
  std::vector<size_t> picks;  // the run of each output row, in merge order
  std::optional<size_t> spent;
  while (static_cast<int64_t>(picks.size()) < batch_rows_ && !heap_.empty()) {
    const size_t r = pop();
    Cursor& c = cursors_[r];
    if (taken[r]++ == 0) first[r] = c.row;
    picks.push_back(r);
    if (++c.row < c.chunk.rows.num_rows()) {
      push(r);
    } else {
      spent = r;  // its next chunk replaces this one: the batch ends here
      break;
    }
  }
  // One slice per run that gave rows, in run order; then rows into merge order.
  std::vector<Batch> slices;
  std::vector<int64_t> offset(nruns, 0);
  int64_t total = 0;
  for (size_t r = 0; r < nruns; ++r) {
    if (taken[r] == 0) continue;
    slices.push_back(cursors_[r].chunk.rows.slice(first[r], taken[r]));
    offset[r] = total;
    total += taken[r];
  }
  Batch out = slices.front();
  if (slices.size() > 1) {
    std::vector<int64_t> rows;
    rows.reserve(picks.size());
    for (size_t r : picks) rows.push_back(offset[r]++);
    out = gather(slices, rows);
  }
  if (spent && load(*spent)) push(*spent);
  return out;
}

}  // namespace ember
