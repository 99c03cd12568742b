// Hash join probe: encode the batch's keys, collect (probe row, build row) pairs, gather.
#include "exec/operators/join_probe_operator.h"

#include "exec/relational/column_gather.h"

namespace ember {

Batch JoinProbeOperator::execute(const Batch& input) const {
  const JoinType type = layout_.type;
  const int64_t n = input.num_rows();
  std::vector<Column> keys;
  for (int k : layout_.left_keys) keys.push_back(input.column(k));
  // One int64 key: look values up as they are; otherwise encode every row's keys.
  const bool ints = table_->int_keyed() && keys[0].type().id() == TypeId::Int64;
  EncodedKeys enc;
  std::vector<int64_t> heads;  ///< int64 key: each row's first match, all looked up at once
  if (ints)
    table_->int_heads(keys[0], heads);
  else
    encode_keys(keys, n, enc);
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
  std::vector<Column> out;
  // Each probe row once, in order (an inner join on a unique build key that all rows find):
  // the left columns are the input's, shared.
  bool every_row_once = static_cast<int64_t>(left.size()) == n;
  for (size_t i = 0; every_row_once && i < left.size(); ++i)
    every_row_once = left[i] == static_cast<int64_t>(i);
  for (int c = 0; c < layout_.left_columns; ++c)
    out.push_back(every_row_once ? input.column(c) : gather(input.column(c), left));
  for (int c : layout_.right_columns) out.push_back(gather(table_->rows().column(c), right));
  return Batch(layout_.output, std::move(out));
}

}  // namespace ember
