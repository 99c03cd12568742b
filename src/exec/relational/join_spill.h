// A grace hash join's spilled rows: when a join's build side passes the memory budget, both
// sides are split by key hash into the same partitions on disk, and each partition is joined
// on its own once the probe side has ended, so that only one partition's build rows are ever
// held in memory.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "ember/batch.h"
#include "exec/relational/spill_file.h"

namespace ember {

class JoinSpill {
 public:
  /// Hash partitions each side is split into (the high bits of the key hash).
  static constexpr int kPartitions = 16;

  /// `build_keys` / `probe_keys`: the key positions in the build (right) and probe (left)
  /// rows, whose schemas are `build` / `probe`.
  JoinSpill(std::vector<int> build_keys, Schema build, std::vector<int> probe_keys, Schema probe);

  /// The key hashes of `rows`, whose keys are at `keys`: equal keys hash alike on both sides
  /// (the join's key types match), so a key's rows meet in one partition.
  struct KeyHashes {
    std::vector<uint64_t> hash;
    std::vector<uint8_t> null;  ///< per row: 1 when one of its keys is null
  };
  static KeyHashes key_hashes(const Batch& rows, const std::vector<int>& keys);
  /// The partition of a key hash (its high bits; the bits below pick a sub-partition when
  /// one partition's build rows are themselves past the budget).
  static int partition_of(uint64_t hash) { return static_cast<int>(hash >> 60); }

  /// Forgets an earlier run's files: the join builds again, in memory until told otherwise.
  void reset();
  /// The build side passed `budget` bytes: from now on its rows go to disk. Driver or any
  /// pipeline thread, before the first write_build.
  void start(int64_t budget);
  /// True once start() was called in this run. Read by probes after the build ended.
  bool spilled() const { return spilled_.load(std::memory_order_acquire); }
  int64_t budget() const { return budget_; }

  /// Appends build rows, each to its key's partition. A row with a null key never matches: it
  /// goes to partition 0, to come out as unmatched for right and full joins. Any thread.
  void write_build(const Batch& rows);
  /// Appends the probe rows whose keys are all valid to their keys' partitions; `keys` are
  /// their key_hashes. Any thread.
  void write_probe(const Batch& rows, const KeyHashes& keys);

  /// The files of partition `p`, for the one reader that joins it after the probe ended.
  SpillFile* build_file(int p) { return build_[static_cast<size_t>(p)].file.get(); }
  SpillFile* probe_file(int p) { return probe_[static_cast<size_t>(p)].file.get(); }
  int64_t build_bytes(int p) const { return build_[static_cast<size_t>(p)].bytes; }
  /// Removes partition `p`'s files: it has been joined.
  void release(int p);
  const Schema& build_schema() const { return build_schema_; }
  const Schema& probe_schema() const { return probe_schema_; }
  const std::vector<int>& build_keys() const { return build_keys_; }
  const std::vector<int>& probe_keys() const { return probe_keys_; }

 private:
  struct Part {
    std::mutex mu;
    std::unique_ptr<SpillFile> file;  ///< made on the first write
    int64_t bytes = 0;
  };
  /// Splits `rows` by partition and appends each piece to its part. A row with a null key
  /// goes to partition 0 when `keep_nulls`, else nowhere.
  static void scatter(const Batch& rows, const KeyHashes& keys, bool keep_nulls, Part* parts);

  std::vector<int> build_keys_;
  Schema build_schema_;
  std::vector<int> probe_keys_;
  Schema probe_schema_;
  std::atomic<bool> spilled_{false};
  int64_t budget_ = 0;
  Part build_[kPartitions];
  Part probe_[kPartitions];
};

}  // namespace ember
