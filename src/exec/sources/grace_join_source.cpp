// Joining one spilled partition: its build rows indexed (piece by piece when they are past
// the partition's share of the budget), its probe rows streamed through them from disk.
#include "exec/sources/grace_join_source.h"

#include <algorithm>

#include "ember/error.h"
#include "exec/operators/join_probe_operator.h"
#include "exec/relational/column_gather.h"

namespace ember {

namespace {

/// Spilled partitions joined at once, at most (the pipeline runs a few partitions at a time):
/// each may index this share of the budget.
constexpr int64_t kBudgetShares = 8;
/// Pieces a partition is split into, at most: each re-reads the partition's probe rows.
constexpr int64_t kMaxPieces = 256;

/// The rows of `rows` whose key falls in piece `piece` of `pieces` (all when there is one).
Batch piece_of(Batch rows, const std::vector<int>& keys, int64_t piece, int64_t pieces) {
  if (pieces == 1) return rows;
  const JoinSpill::KeyHashes h = JoinSpill::key_hashes(rows, keys);
  std::vector<int64_t> in;
  for (size_t i = 0; i < h.hash.size(); ++i) {
    // Bits below the partition's: independent of it. A null key (build side only) goes to
    // piece 0, where it comes out unmatched.
    const auto p = h.null[i] ? 0 : static_cast<int64_t>(((h.hash[i] >> 28) & 0xffffffffU) % pieces);
    if (p == piece) in.push_back(static_cast<int64_t>(i));
  }
  return in.size() == h.hash.size() ? rows : gather(rows, in);
}

Batch empty_batch(const Schema& schema) {
  std::vector<Column> cols;
  for (const Field& f : schema.fields()) cols.push_back(Column::nulls(f.type, 0));
  return Batch(schema, std::move(cols));
}

std::vector<DataType> types_of(const Schema& schema) {
  std::vector<DataType> out;
  for (const Field& f : schema.fields()) out.push_back(f.type);
  return out;
}

class GraceJoinReader final : public BatchReader {
 public:
  GraceJoinReader(std::shared_ptr<JoinSpill> spill, const JoinLayout& layout, int partition)
      : spill_(std::move(spill)), layout_(layout), partition_(partition) {
    const int64_t share = std::max<int64_t>(1, spill_->budget() / kBudgetShares);
    pieces_ =
        std::clamp<int64_t>((spill_->build_bytes(partition) + share - 1) / share, 1, kMaxPieces);
    build_ = spill_->build_file(partition);
    probe_ = spill_->probe_file(partition);
    // A partition with no probe rows has output only for the build rows nothing matched.
    const bool unmatched = layout_.type == JoinType::Right || layout_.type == JoinType::Full;
    if (!probe_ && !(unmatched && build_)) piece_ = pieces_;
    // Inner, semi and right joins of probe rows against no build rows have no output.
    const bool probe_only = layout_.type == JoinType::Left || layout_.type == JoinType::Full ||
                            layout_.type == JoinType::Anti;
    if (!build_ && !probe_only) piece_ = pieces_;
  }
  ~GraceJoinReader() override { spill_->release(partition_); }

  std::optional<Batch> next() override {
    while (piece_ < pieces_) {
      if (!table_) load_piece();
      if (probe_) {
        while (auto group = probe_->read_next(probe_types_)) {
          Batch rows = piece_of(Batch(spill_->probe_schema(), std::move(*group)),
                                spill_->probe_keys(), piece_, pieces_);
          if (rows.num_rows() == 0) continue;
          Batch out = probe_op_->execute(rows);
          if (out.num_rows() > 0) return out;
        }
      }
      Batch rest;  // the piece's build rows nothing matched
      if (layout_.type == JoinType::Right || layout_.type == JoinType::Full)
        rest = unmatched_build_rows(*table_, layout_);
      table_.reset();
      probe_op_.reset();
      ++piece_;
      if (rest.num_rows() > 0) return rest;
    }
    spill_->release(partition_);
    return std::nullopt;
  }

 private:
  /// Indexes the build rows of the current piece and rewinds the probe rows.
  void load_piece() {
    std::vector<Batch> rows;
    if (build_) {
      build_->restart();
      while (auto group = build_->read_next(build_types_)) {
        Batch b = piece_of(Batch(spill_->build_schema(), std::move(*group)), spill_->build_keys(),
                           piece_, pieces_);
        if (b.num_rows() > 0) rows.push_back(std::move(b));
      }
    }
    table_ = std::make_shared<JoinHashTable>(layout_.right_keys);
    table_->build(rows.empty() ? empty_batch(spill_->build_schema()) : Batch::concat(rows));
    probe_op_ = std::make_unique<JoinProbeOperator>(table_, layout_);
    if (probe_) probe_->restart();
  }

  std::shared_ptr<JoinSpill> spill_;
  JoinLayout layout_;
  int partition_;
  SpillFile* build_ = nullptr;
  SpillFile* probe_ = nullptr;
  std::vector<DataType> build_types_ = types_of(spill_->build_schema());
  std::vector<DataType> probe_types_ = types_of(spill_->probe_schema());
  int64_t pieces_ = 1;
  int64_t piece_ = 0;
  std::shared_ptr<JoinHashTable> table_;
  std::unique_ptr<JoinProbeOperator> probe_op_;
};

}  // namespace

std::unique_ptr<BatchReader> GraceJoinSource::open(int p, int64_t) const {
  if (p < 0 || p >= JoinSpill::kPartitions)
    throw InvalidArgument("GraceJoin: " + std::to_string(JoinSpill::kPartitions) +
                          " partitions, asked for " + std::to_string(p));
  return std::make_unique<GraceJoinReader>(spill_, layout_, p);
}

std::string GraceJoinSource::describe() const {
  return "GraceJoin (the spilled partitions of a join, " + std::to_string(JoinSpill::kPartitions) +
         " partitions)";
}

}  // namespace ember
