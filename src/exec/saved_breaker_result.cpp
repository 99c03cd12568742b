// Saving, loading and dropping a resumable write's breaker result; see saved_breaker_result.h.
#include "exec/saved_breaker_result.h"

#include <filesystem>
#include <map>

#include "ember/error.h"
#include "exec/operators/actor_pool_operator.h"
#include "exec/operators/join_probe_operator.h"
#include "exec/sources/saved_result_source.h"
#include "io/arrow/arrow_writer.h"

namespace ember {
namespace {

namespace fs = std::filesystem;

/// Its name in the staging directory: never a part file's (part-*), so never output.
constexpr const char* kFile = "breaker-result.arrow";
constexpr int64_t kSaveBatchRows = 64 * 1024;

bool arrow_holds(const Schema& schema) {
  try {
    check_arrow_schema(schema);
    return true;
  } catch (const InvalidArgument&) {
    return false;
  }
}

}  // namespace

bool saves_breaker_result(const PhysicalPlan& physical) {
  if (physical.pipelines.size() < 2) return false;
  const Pipeline& last = physical.pipelines.back();
  if (last.source || !last.tails.empty() || !arrow_holds(last.input)) return false;
  for (const auto& segment : last.segments)
    for (const auto& op : segment)
      if (dynamic_cast<const JoinProbeOperator*>(op.get())) return false;
  return true;
}

JournalBreakerResult save_breaker_result(const Source& result, const std::string& staging_dir) {
  JournalBreakerResult saved;
  saved.file = kFile;
  ArrowWriter writer(staging_dir, kFile, result.schema());
  for (int p = 0; p < result.num_partitions(); ++p) {
    std::unique_ptr<BatchReader> reader = result.open(p, kSaveBatchRows);
    int64_t batches = 0;
    while (std::optional<Batch> batch = reader->next()) {
      if (batch->num_rows() == 0) continue;  // the writer writes no empty record batch
      writer.write(*batch);
      saved.rows += batch->num_rows();
      ++batches;
    }
    saved.batches.push_back(batches);
  }
  writer.commit();
  std::error_code ec;
  const auto bytes = fs::file_size(fs::path(staging_dir) / kFile, ec);
  if (ec) throw IoError("cannot read the size of '" + staging_dir + "/" + kFile + "'");
  saved.bytes = static_cast<int64_t>(bytes);
  return saved;
}

std::shared_ptr<const Source> load_breaker_result(const std::string& staging_dir,
                                                  const JournalBreakerResult& saved) {
  return std::make_shared<SavedResultSource>((fs::path(staging_dir) / saved.file).string(),
                                             saved.batches, "breaker result");
}

void remove_breaker_result(const std::string& staging_dir) noexcept {
  std::error_code ec;
  fs::remove(fs::path(staging_dir) / kFile, ec);
}

PhysicalPlan write_pipeline_only(const PhysicalPlan& full, std::shared_ptr<const Source> saved,
                                 std::vector<size_t>& kept_pools) {
  PhysicalPlan plan;
  plan.schema = full.schema;
  Pipeline write = full.pipelines.back();
  write.source = std::move(saved);
  std::map<int, int> renumbered;
  for (auto& stage : write.stages) {
    const auto* op = dynamic_cast<const ActorPoolOperator*>(stage.get());
    if (!op) continue;
    auto [it, added] = renumbered.emplace(op->pool(), static_cast<int>(plan.pools.size()));
    if (added) {
      plan.pools.push_back(full.pools.at(static_cast<size_t>(op->pool())));
      kept_pools.push_back(static_cast<size_t>(op->pool()));
    }
    stage = op->with_pool(it->second);
  }
  write.steps.insert(write.steps.begin(), "the breaker result an earlier run saved");
  plan.pipelines.push_back(std::move(write));
  return plan;
}

std::vector<UdfStats> full_plan_udf_stats(const PhysicalPlan& full, std::vector<UdfStats> ran,
                                          const std::vector<size_t>& kept_pools, int ranks) {
  std::vector<UdfStats> all(full.pools.size());
  for (size_t i = 0; i < all.size(); ++i) {
    all[i].name = full.pools[i]->name;
    all[i].actors_per_rank.assign(static_cast<size_t>(ranks), 0);
    all[i].inits_per_rank.assign(static_cast<size_t>(ranks), 0);
  }
  for (size_t i = 0; i < kept_pools.size() && i < ran.size(); ++i)
    all.at(kept_pools[i]) = std::move(ran[i]);
  return all;
}

}  // namespace ember
