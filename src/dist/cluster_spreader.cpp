// A spread query on rank 0: the orders sent to the worker ranks, a source that reads what they
// send back, and the wait for all of them at the end.
#include "dist/cluster_spreader.h"

#if EMBER_HAVE_MPI

#include <algorithm>
#include <filesystem>
#include <mutex>

#include "core/cancelled.h"
#include "dist/batch_message.h"
#include "dist/pipeline_message.h"
#include "dist/pool_service.h"
#include "dist/rank_protocol.h"
#include "dist/remote_actor.h"

namespace ember::dist {

namespace {

class ClusterRun;

/// Partition p: the batches its rank sends under its key, until the partition's end.
class ReceivedReader final : public BatchReader {
 public:
  ReceivedReader(ClusterRun& run, uint64_t key, int rank) : run_(run), key_(key), rank_(rank) {}
  std::optional<Batch> next() override;

 private:
  ClusterRun& run_;
  uint64_t key_;
  int rank_;
  bool ended_ = false;
};

class ClusterRun final : public SpreadRun, public Source {
 public:
  ClusterRun(uint64_t id, int ranks, const PhysicalPlan& plan, const std::string& pipeline,
             QueryContext& query, const SpreadOutput& output)
      : id_(id),
        ranks_(ranks),
        schema_(plan.pipelines.front().schema),
        files_(output.files),
        query_(query) {
    const int n = plan.pipelines.front().source->num_partitions();
    key_of_.assign(static_cast<size_t>(n), 0);
    rank_of_.assign(static_cast<size_t>(n), 0);
    std::vector<std::vector<int>> share(static_cast<size_t>(ranks));
    for (int p = 0; p < n; ++p) {
      const int r = p % ranks;
      rank_of_[static_cast<size_t>(p)] = r;
      share[static_cast<size_t>(r)].push_back(p);
      if (r == 0) {
        local_.push_back(p);
      } else {
        remote_.push_back(p);
        key_of_[static_cast<size_t>(p)] = reply_key_open();
      }
    }
    open_pool_service(id_, &query);
    done_key_.assign(static_cast<size_t>(ranks), 0);
    for (int r = 1; r < ranks; ++r) {
      const auto& mine = share[static_cast<size_t>(r)];
      if (mine.empty()) continue;
      const uint64_t done = reply_key_open();
      done_key_[static_cast<size_t>(r)] = done;
      process::MessageWriter out;
      out.begin(process::Op::Init);
      out.put(id_);
      out.put(done);
      out.put(static_cast<uint32_t>(mine.size()));
      for (int p : mine) {
        out.put(static_cast<int32_t>(p));
        out.put(key_of_[static_cast<size_t>(p)]);
      }
      out.put(static_cast<int32_t>(r));
      out.put(static_cast<uint32_t>(plan.pools.size()));
      for (const auto& spec : plan.pools) {
        // Local first: a rank that hosts actors of the pool calls them directly (its batches
        // never cross the network); a rank without any goes through rank 0's pool, with as
        // many proxies as the pool has actors, so that it can keep each of them busy.
        std::vector<uint64_t> own;
        for (const HostedActor& a : hosted_actors(spec.get()))
          if (a.rank == r) own.push_back(a.key);
        out.put(static_cast<int32_t>(own.empty() ? std::max(1, spec->concurrency) : 0));
        out.put(static_cast<uint32_t>(own.size()));
        for (uint64_t key : own) out.put(key);
      }
      out.put_string(pipeline);
      out.put(static_cast<uint8_t>(output.files));
      out.put(static_cast<uint8_t>(output.format));
      // Absolute: a rank's working directory need not be rank 0's.
      out.put_string(output.files ? std::filesystem::absolute(output.dir).string() : "");
      Transport::send(r, kTagQuery, out.bytes());
    }
  }

  ~ClusterRun() override {
    if (finished_) return;
    cancel();
    try {
      finish();
    } catch (...) {  // the query has failed already; its first error is what it reports
    }
  }

  // SpreadRun
  const std::vector<int>& local_partitions() const override { return local_; }
  const std::vector<int>& remote_partitions() const override { return remote_; }
  const Source& results() const override { return *this; }
  bool writes_files() const override { return files_; }
  const std::vector<UdfStats>& udf_figures() const override { return udfs_; }
  void cancel() override {
    std::lock_guard lock(mu_);
    if (cancelled_) return;
    cancelled_ = true;
    process::MessageWriter out;
    out.begin(process::Op::Stop);
    out.put(id_);
    for (int r = 1; r < ranks_; ++r)
      if (done_key_[static_cast<size_t>(r)] != 0) Transport::send(r, kTagQuery, out.bytes());
  }
  std::vector<RankStats> finish() override {
    finished_ = true;
    std::vector<RankStats> stats(static_cast<size_t>(ranks_));
    for (int r = 1; r < ranks_; ++r) {
      stats[static_cast<size_t>(r)].rank = r;
      const uint64_t key = done_key_[static_cast<size_t>(r)];
      if (key == 0) continue;
      for (;;) {  // the rank's last message; anything before it under this key is not expected
        Incoming m = reply_wait(key);
        process::MessageReader in(m.bytes());
        in.get<uint64_t>();
        if (in.header().op != process::Op::Ready) continue;
        RankStats& rank = stats[static_cast<size_t>(r)];
        rank.partitions = in.get<int64_t>();
        rank.rows = in.get<int64_t>();
        const auto pools = in.get<uint32_t>();
        if (udfs_.size() < pools) udfs_.resize(pools);
        for (uint32_t i = 0; i < pools; ++i) {
          UdfStats& u = udfs_[i];
          u.batches += in.get<int64_t>();
          u.rows += in.get<int64_t>();
          u.retries += in.get<int64_t>();
          u.timeouts += in.get<int64_t>();
          const double busy = in.get<double>();
          u.busy_seconds += busy;
          rank.busy_seconds += busy;
        }
        break;
      }
      reply_key_close(key);
    }
    // Every rank has ended: no call for this query can arrive any more.
    close_pool_service(id_);
    for (int p : remote_) reply_key_close(key_of_[static_cast<size_t>(p)]);
    return stats;
  }

  /// A rank's error ends the whole query at once, not only the reading of its rows.
  void fail_query(std::exception_ptr error) { query_.fail(std::move(error)); }

  // Source: the rows the other ranks computed.
  const Schema& schema() const override { return schema_; }
  int num_partitions() const override { return static_cast<int>(key_of_.size()); }
  std::unique_ptr<BatchReader> open(int p, int64_t) const override {
    const auto up = static_cast<size_t>(p);
    return std::make_unique<ReceivedReader>(const_cast<ClusterRun&>(*this), key_of_.at(up),
                                            rank_of_.at(up));
  }
  std::string describe() const override { return "rows computed on other ranks"; }

 private:
  uint64_t id_;
  int ranks_;
  Schema schema_;
  bool files_;
  QueryContext& query_;
  std::vector<int> local_, remote_;
  std::vector<uint64_t> key_of_;    ///< per partition; 0 on rank 0
  std::vector<int> rank_of_;        ///< per partition
  std::vector<uint64_t> done_key_;  ///< per rank; 0: no partitions there
  std::mutex mu_;
  bool cancelled_ = false;      // guarded by mu_
  bool finished_ = false;       // driver thread only
  std::vector<UdfStats> udfs_;  ///< per pool; driver thread only
};

std::optional<Batch> ReceivedReader::next() {
  if (ended_) return std::nullopt;
  Incoming m = reply_wait(key_);
  process::MessageReader in(m.bytes());
  in.get<uint64_t>();
  switch (in.header().op) {
    case process::Op::Result: {
      const auto rows = in.get<int64_t>();
      if (!m.data) throw Error("rank " + std::to_string(rank_) + ": a batch without its columns");
      return to_batch(unpack_columns(in, m.data), rows);
    }
    case process::Op::Stop:
      ended_ = true;
      return std::nullopt;
    default:
      ended_ = true;
      try {
        raise_failure(in, rank_);
      } catch (const Cancelled&) {
        throw;  // this rank ended the query (failed or had enough): nothing more to report
      } catch (...) {
        run_.cancel();  // the other ranks stop too
        run_.fail_query(std::current_exception());
        throw;
      }
  }
}

}  // namespace

std::unique_ptr<SpreadRun> ClusterSpreader::spread(const LogicalNode& optimized,
                                                   const PhysicalPlan& plan, QueryContext& query,
                                                   const SpreadOutput& output) {
  if (ranks_ < 2 || plan.pipelines.empty() || !plan.pipelines.front().source) return nullptr;
  if (plan.pipelines.front().source->num_partitions() < 2) return nullptr;
  std::string why;
  const std::string pipeline = encode_first_pipeline(optimized, &why);
  if (pipeline.empty()) return nullptr;
  return std::make_unique<ClusterRun>(next_query_++, ranks_, plan, pipeline, query, output);
}

std::string ClusterSpreader::explain(const LogicalNode& optimized, const PhysicalPlan& plan) {
  if (plan.pipelines.empty() || !plan.pipelines.front().source) return "nothing to read";
  const int n = plan.pipelines.front().source->num_partitions();
  std::string why;
  if (encode_first_pipeline(optimized, &why).empty())
    return "the first pipeline runs on rank 0 alone: " + why;
  if (n < 2) return "the first pipeline runs on rank 0 alone: its source has one partition";
  std::string out = "the first pipeline's " + std::to_string(n) + " partitions run on " +
                    std::to_string(std::min(n, ranks_)) + " ranks (partition p on rank p % " +
                    std::to_string(ranks_) + "), their rows gathered on rank 0 in partition order";
  if (plan.pipelines.size() > 1) out += "; the pipelines after its breaker run on rank 0";
  return out;
}

}  // namespace ember::dist

#else

namespace ember::dist {
std::unique_ptr<SpreadRun> ClusterSpreader::spread(const LogicalNode&, const PhysicalPlan&,
                                                   QueryContext&, const SpreadOutput&) {
  return nullptr;
}
std::string ClusterSpreader::explain(const LogicalNode&, const PhysicalPlan&) { return ""; }
}  // namespace ember::dist

#endif  // EMBER_HAVE_MPI
