// The hash exchange of a join side's rows: split by key hash, kept per bucket.
#include "exec/sinks/shuffle_sink.h"

#include <cstring>
#include <map>

#include "exec/relational/column_codec.h"
#include "exec/relational/column_gather.h"
#include "exec/relational/join_spill.h"
#include "exec/relational/key_encoder.h"
#include "exec/sources/table_source.h"

namespace ember {

namespace {

/// Every partition's rows per bucket of this rank, filled as partitions end in any order: in
/// memory up to half the budget, then on disk.
struct Buckets final : GlobalSinkState {
  std::mutex mu;
  std::map<int, std::vector<std::vector<Batch>>> by_partition;  // guarded by mu
  int64_t bytes = 0;                                            // guarded by mu: in memory
  std::vector<std::shared_ptr<SpillFile>> spilled;              // guarded by mu: per bucket
};

struct Rows final : LocalSinkState {
  explicit Rows(int p, int per_rank) : partition(p), adopted(static_cast<size_t>(per_rank)) {}
  int partition;
  std::vector<Batch> sunk;                  ///< rows this rank's pipeline gave it
  std::vector<std::vector<Batch>> adopted;  ///< per bucket: rows a share brought
};

/// A bucket's rows: those in memory (read as a table's partition), then those its spill file
/// holds.
class BucketReader final : public BatchReader {
 public:
  BucketReader(Schema schema, std::vector<Batch> rows, std::shared_ptr<SpillFile> spilled,
               int64_t batch_rows)
      : schema_(std::move(schema)),
        in_memory_(std::make_shared<TableSource>(
            schema_, std::vector<std::vector<Batch>>{std::move(rows)}, "JoinBucket")),
        memory_(in_memory_->open(0, batch_rows)),
        spilled_(std::move(spilled)) {
    if (spilled_) spilled_->restart();
    for (const Field& f : schema_.fields()) types_.push_back(f.type);
  }
  std::optional<Batch> next() override {
    if (std::optional<Batch> b = memory_->next()) return b;
    if (!spilled_) return std::nullopt;
    std::optional<std::vector<Column>> group = spilled_->read_next(types_);
    if (!group) return std::nullopt;
    return Batch(schema_, std::move(*group));
  }

 private:
  Schema schema_;
  std::vector<DataType> types_;
  std::shared_ptr<const Source> in_memory_;  ///< outlives memory_, which reads its batches
  std::unique_ptr<BatchReader> memory_;
  std::shared_ptr<SpillFile> spilled_;
};

/// One bucket of a side as a source of one partition.
class BucketSource final : public Source {
 public:
  BucketSource(Schema schema, std::vector<Batch> rows, std::shared_ptr<SpillFile> spilled)
      : schema_(std::move(schema)), rows_(std::move(rows)), spilled_(std::move(spilled)) {}
  const Schema& schema() const override { return schema_; }
  int num_partitions() const override { return 1; }
  std::unique_ptr<BatchReader> open(int, int64_t batch_rows) const override {
    return std::make_unique<BucketReader>(schema_, rows_, spilled_, batch_rows);
  }
  std::string describe() const override { return "JoinBucket"; }
  void accept(SourceVisitor& v) const override { v.visit_intermediate(*this); }

 private:
  Schema schema_;
  std::vector<Batch> rows_;
  std::shared_ptr<SpillFile> spilled_;
};

}  // namespace

void JoinBuckets::fill(std::vector<std::vector<Batch>> buckets,
                       std::vector<std::shared_ptr<SpillFile>> spilled) {
  std::lock_guard lock(mu_);
  buckets_ = std::move(buckets);
  spilled_ = std::move(spilled);
}

std::shared_ptr<const Source> JoinBuckets::bucket(int k, const Schema& schema) const {
  std::lock_guard lock(mu_);
  const auto at = static_cast<size_t>(k);
  return std::make_shared<BucketSource>(schema,
                                        at < buckets_.size() ? buckets_[at] : std::vector<Batch>{},
                                        at < spilled_.size() ? spilled_[at] : nullptr);
}

int join_bucket(uint64_t hash, int buckets) {
  // The middle bits, mixed again: the hash table takes the low bits, grace partitions the top.
  return static_cast<int>(mix_bits(hash >> 16) % static_cast<uint64_t>(buckets));
}

ShuffleSink::ShuffleSink(std::vector<int> keys, Schema schema, int per_rank,
                         std::shared_ptr<JoinBuckets> kept)
    : keys_(std::move(keys)),
      schema_(std::move(schema)),
      per_rank_(per_rank),
      kept_(std::move(kept)) {}

std::unique_ptr<GlobalSinkState> ShuffleSink::global_state(int) const {
  return std::make_unique<Buckets>();
}

std::unique_ptr<LocalSinkState> ShuffleSink::local_state(GlobalSinkState&, int partition) const {
  return std::make_unique<Rows>(partition, per_rank_);
}

void ShuffleSink::sink(GlobalSinkState&, LocalSinkState& local, const Batch& batch) const {
  if (batch.num_rows() > 0) local.as<Rows>().sunk.push_back(batch);
}

std::vector<std::vector<Batch>> ShuffleSink::split(const std::vector<Batch>& parts,
                                                   int ranks) const {
  const int buckets = ranks * per_rank_;
  std::vector<std::vector<int64_t>> picked(static_cast<size_t>(buckets));
  int64_t rows = 0;  // row numbers run on from part to part
  for (const Batch& part : parts) {
    if (part.num_rows() == 0) continue;
    const JoinSpill::KeyHashes hashes = JoinSpill::key_hashes(part, keys_);
    for (int64_t i = 0; i < part.num_rows(); ++i)
      picked[static_cast<size_t>(join_bucket(hashes.hash[static_cast<size_t>(i)], buckets))]
          .push_back(rows + i);
    rows += part.num_rows();
  }
  std::vector<std::vector<Batch>> out(static_cast<size_t>(ranks),
                                      std::vector<Batch>(static_cast<size_t>(per_rank_)));
  for (int b = 0; b < buckets; ++b) {
    const auto& at = picked[static_cast<size_t>(b)];
    if (at.empty()) continue;
    // Gathered from the parts where they lie: no copy of the whole partition first.
    out[static_cast<size_t>(b % ranks)][static_cast<size_t>(b / ranks)] =
        parts.size() == 1 && static_cast<int64_t>(at.size()) == rows ? parts.front()
                                                                     : gather(parts, at);
  }
  return out;
}

void ShuffleSink::combine(GlobalSinkState& global, LocalSinkState& local) const {
  auto& part = local.as<Rows>();
  std::vector<std::vector<Batch>> kept = std::move(part.adopted);
  if (!part.sunk.empty()) {  // no exchange: every bucket is this rank's
    const std::vector<std::vector<Batch>> cut = split(part.sunk, 1);
    part.sunk.clear();
    for (int k = 0; k < per_rank_; ++k) {
      const Batch& b = cut[0][static_cast<size_t>(k)];
      if (b.num_rows() > 0) kept[static_cast<size_t>(k)].push_back(b);
    }
  }
  int64_t bytes = 0;
  for (const auto& bucket : kept)
    for (const Batch& b : bucket) bytes += b.byte_size();
  auto& all = global.as<Buckets>();
  std::lock_guard lock(all.mu);
  const int64_t room = all.memory_budget_bytes / 2;
  if (room > 0 && (!all.spilled.empty() || all.bytes + bytes > room)) {
    all.spilled.resize(static_cast<size_t>(per_rank_));
    for (size_t k = 0; k < kept.size(); ++k)
      for (const Batch& b : kept[k]) {
        if (b.num_rows() == 0) continue;
        if (!all.spilled[k]) all.spilled[k] = std::make_shared<SpillFile>();
        all.spilled[k]->write(b.columns());
      }
    return;
  }
  all.bytes += bytes;
  all.by_partition[part.partition] = std::move(kept);
}

std::vector<Sink::Share> ShuffleSink::encode_partial_shares(GlobalSinkState&, LocalSinkState& local,
                                                            int shares) const {
  auto& part = local.as<Rows>();
  const std::vector<std::vector<Batch>> cut = split(part.sunk, shares);
  part.sunk.clear();
  std::vector<Share> out(static_cast<size_t>(shares));
  for (int q = 0; q < shares; ++q) {
    Share& share = out[static_cast<size_t>(q)];
    size_t room = 0;  // about what the encoding takes: the bytes grow once
    for (const Batch& b : cut[static_cast<size_t>(q)])
      room += sizeof(int64_t) + static_cast<size_t>(b.byte_size()) + 64 * b.num_columns();
    share.bytes.reserve(room);
    for (const Batch& b : cut[static_cast<size_t>(q)]) {
      const int64_t n = b.num_rows();
      share.bytes.append(reinterpret_cast<const char*>(&n), sizeof n);
      if (n > 0) append_columns(b.columns(), share.bytes);
      share.rows += n;
    }
  }
  return out;
}

void ShuffleSink::adopt_partial(GlobalSinkState&, LocalSinkState& local,
                                std::string_view bytes) const {
  std::vector<DataType> types;
  for (const Field& f : schema_.fields()) types.push_back(f.type);
  auto& part = local.as<Rows>();
  for (int k = 0; k < per_rank_; ++k) {
    int64_t n = 0;
    if (bytes.size() < sizeof n) throw Error("a join side's share cut short");
    std::memcpy(&n, bytes.data(), sizeof n);
    bytes.remove_prefix(sizeof n);
    if (n < 0) throw Error("a join side's share of a broken length");
    if (n == 0) continue;
    std::vector<Column> columns = read_columns(bytes, types);
    for (const Column& c : columns)
      if (c.size() != n) throw Error("a join side's share with columns of other lengths");
    part.adopted[static_cast<size_t>(k)].push_back(Batch(schema_, std::move(columns)));
  }
  if (!bytes.empty()) throw Error("a join side's share followed by stray bytes");
}

std::shared_ptr<const Source> ShuffleSink::finalize(GlobalSinkState& global) const {
  auto& all = global.as<Buckets>();
  std::vector<std::vector<Batch>> buckets(static_cast<size_t>(per_rank_));
  std::vector<std::shared_ptr<SpillFile>> spilled;
  {
    std::lock_guard lock(all.mu);
    for (auto& [partition, parts] : all.by_partition)  // in partition order
      for (size_t k = 0; k < parts.size() && k < buckets.size(); ++k)
        for (Batch& b : parts[k]) buckets[k].push_back(std::move(b));
    all.by_partition.clear();
    all.bytes = 0;
    spilled.swap(all.spilled);
  }
  kept_->fill(std::move(buckets), std::move(spilled));
  return std::make_shared<TableSource>(schema_, std::vector<std::vector<Batch>>(1), "JoinBuckets");
}

std::shared_ptr<const Source> ShuffleSink::finalize_shares(GlobalSinkState& global,
                                                           std::vector<Batch> others) const {
  for (const Batch& b : others)
    if (b.num_rows() > 0) throw Error("internal: a rank sent its join buckets' rows to rank 0");
  return finalize(global);
}

}  // namespace ember
