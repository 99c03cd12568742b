// Hash join probe: encode the batch's keys, collect (probe row, build row) pairs, gather.
#include "exec/operators/join_probe_operator.h"

#include "exec/relational/column_gather.h"

namespace ember {

namespace {

/// The output rows: probe row left[j] (null: every row once, in order, so the left columns are
/// the input's, shared) joined with build row right[j] (-1: nulls).
Batch joined(const Batch& input, const JoinLayout& layout, const JoinHashTable& table,
             const std::vector<int64_t>* left, const std::vector<int64_t>& right) {
  std::vector<Column> out;
  for (int c = 0; c < layout.left_columns; ++c)
    out.push_back(left ? gather(input.column(c), *left) : input.column(c));
  for (int c : layout.right_columns) out.push_back(gather(table.rows().column(c), right));
  return Batch(layout.output, std::move(out));
}

}  // namespace

Batch JoinProbeOperator::execute(const Batch& input) const {
  if (!spill_ || !spill_->spilled()) return probe(input);
  const JoinSpill::KeyHashes keys = JoinSpill::key_hashes(input, layout_.left_keys);
  spill_->write_probe(input, keys);
  // A null key matches nothing (the table is empty): its row's output is known now.
  std::vector<int64_t> nulls;
  for (size_t i = 0; i < keys.null.size(); ++i)
    if (keys.null[i]) nulls.push_back(static_cast<int64_t>(i));
  return probe(nulls.empty() ? input.slice(0, 0) : gather(input, nulls));
}

Batch JoinProbeOperator::probe(const Batch& input) const {
  const JoinType type = layout_.type;
  const int64_t n = input.num_rows();
  std::vector<Column> keys;
  for (int k : layout_.left_keys) keys.push_back(input.column(k));
  // One int64 key: look values up as they are; otherwise encode every row's keys.
  const bool ints = table_->int_keyed() && keys[0].type().id() == TypeId::Int64;
  EncodedKeys enc;
  // int64 key: each row's first match, all looked up at once. Kept per thread: a new batch-
  // sized vector each time costs more in page faults than the lookups themselves.
  thread_local std::vector<int64_t> heads;
  if (ints)
    table_->int_heads(keys[0], heads);
  else
    encode_keys(keys, n, enc);
  // An inner join on unique int64 build keys: a probe row's only match is its head. Keep the
  // rows that found one, compacting the heads in place into the build rows.
  if (ints && type == JoinType::Inner && table_->unique_keys()) {
    bool all = true;
    for (int64_t h : heads) all = all && h >= 0;
    if (all) return joined(input, layout_, *table_, nullptr, heads);
    std::vector<int64_t> left;
    size_t kept = 0;
    for (size_t i = 0; i < heads.size(); ++i) {
      if (heads[i] < 0) continue;
      left.push_back(static_cast<int64_t>(i));
      heads[kept++] = heads[i];
    }
    heads.resize(kept);
    return joined(input, layout_, *table_, &left, heads);
  }
  auto matches = [&](int64_t i, auto&& f) {
    if (ints) {
      for (int64_t r = heads[static_cast<size_t>(i)]; r >= 0; r = table_->next_match(r)) f(r);
    } else if (!enc.any_null[static_cast<size_t>(i)]) {  // a null key never matches
      table_->for_each_match(enc.row(i), f);
    }
  };

  const bool keep_unmatched = type == JoinType::Left || type == JoinType::Full;
  const bool mark = type == JoinType::Right || type == JoinType::Full;
  std::vector<int64_t> left, right;
  left.reserve(static_cast<size_t>(n));
  right.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    bool any = false;
    matches(i, [&](int64_t r) {
      any = true;
      if (type == JoinType::Semi || type == JoinType::Anti) return;
      left.push_back(i);
      right.push_back(r);
      if (mark) table_->mark_matched(r);
    });
    if ((type == JoinType::Semi && any) || (type == JoinType::Anti && !any) ||
        (keep_unmatched && !any)) {
      left.push_back(i);
      right.push_back(-1);
    }
  }
  // Each probe row once, in order (a join whose rows each found one match): the left columns
  // are the input's, shared.
  bool every_row_once = static_cast<int64_t>(left.size()) == n;
  for (size_t i = 0; every_row_once && i < left.size(); ++i)
    every_row_once = left[i] == static_cast<int64_t>(i);
  return joined(input, layout_, *table_, every_row_once ? nullptr : &left, right);
}

}  // namespace ember
