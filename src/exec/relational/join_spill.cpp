// Grace hash join partitions on disk: rows split by the high bits of their key hash.
#include "exec/relational/join_spill.h"

#include "exec/relational/column_gather.h"
#include "exec/relational/key_encoder.h"

namespace ember {

JoinSpill::JoinSpill(std::vector<int> build_keys, Schema build, std::vector<int> probe_keys,
                     Schema probe)
    : build_keys_(std::move(build_keys)),
      build_schema_(std::move(build)),
      probe_keys_(std::move(probe_keys)),
      probe_schema_(std::move(probe)) {}

void JoinSpill::reset() {
  spilled_.store(false, std::memory_order_release);
  budget_ = 0;
  for (Part* side : {build_, probe_}) {
    for (int p = 0; p < kPartitions; ++p) {
      side[p].file.reset();
      side[p].bytes = 0;
    }
  }
}

void JoinSpill::release(int p) {
  build_[p].file.reset();
  probe_[p].file.reset();
}

void JoinSpill::start(int64_t budget) {
  budget_ = budget;
  spilled_.store(true, std::memory_order_release);
}

JoinSpill::KeyHashes JoinSpill::key_hashes(const Batch& rows, const std::vector<int>& keys) {
  std::vector<Column> cols;
  for (int k : keys) cols.push_back(rows.column(k));
  EncodedKeys enc;
  encode_keys(cols, rows.num_rows(), enc);
  KeyHashes out;
  out.hash.resize(static_cast<size_t>(rows.num_rows()));
  for (int64_t i = 0; i < rows.num_rows(); ++i)
    out.hash[static_cast<size_t>(i)] = hash_key(enc.row(i));
  out.null = std::move(enc.any_null);
  return out;
}

void JoinSpill::scatter(const Batch& rows, const KeyHashes& keys, bool keep_nulls, Part* parts) {
  std::vector<int64_t> rows_of[kPartitions];
  for (int64_t i = 0; i < rows.num_rows(); ++i) {
    const auto at = static_cast<size_t>(i);
    if (!keys.null[at])
      rows_of[partition_of(keys.hash[at])].push_back(i);
    else if (keep_nulls)
      rows_of[0].push_back(i);
  }
  for (int p = 0; p < kPartitions; ++p) {
    if (rows_of[p].empty()) continue;
    Batch piece = gather(rows, rows_of[p]);
    Part& part = parts[p];
    std::lock_guard<std::mutex> lock(part.mu);
    if (!part.file) part.file = std::make_unique<SpillFile>();
    part.file->write(piece.columns());
    part.bytes += piece.byte_size();
  }
}

void JoinSpill::write_build(const Batch& rows) {
  if (rows.num_rows() > 0) scatter(rows, key_hashes(rows, build_keys_), true, build_);
}

void JoinSpill::write_probe(const Batch& rows, const KeyHashes& keys) {
  scatter(rows, keys, false, probe_);
}

}  // namespace ember
