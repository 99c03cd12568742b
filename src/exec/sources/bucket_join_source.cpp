// A bucket's join, run here as a small local query over the bucket's rows of both sides, its
// output streamed to the bucket's reader.
#include "exec/sources/bucket_join_source.h"

#include <optional>
#include <thread>
#include <utility>

#include "core/cancelled.h"
#include "exec/physical_planner.h"
#include "exec/pipeline_runner.h"
#include "exec/query_context.h"
#include "exec/sinks/hand_off_sink.h"
#include "plan/nodes/join_node.h"
#include "plan/nodes/source_node.h"

namespace ember {

namespace {

/// Batches that wait for the bucket's reader before its join is blocked.
constexpr size_t kJoinedAhead = 2;

/// Streams a bucket's join: its pipelines run on a thread of their own (the build side's first,
/// then the probe of the left bucket and any tail, whose batches are handed over as they come),
/// so that a bucket's output is never all in memory. Closing the reader early stops the join.
class JoinedRows final : public BatchReader {
 public:
  JoinedRows(NodePtr joined, int64_t memory_budget, int64_t batch_rows)
      : joined_(std::move(joined)),
        plan_(plan_physical(*joined_)),
        memory_budget_(memory_budget),
        batch_rows_(batch_rows),
        thread_([this] { join(); }) {}
  ~JoinedRows() override {
    hand_off_->close();  // the join blocked on this reader goes on, dropping what it makes
    context_.fail(std::make_exception_ptr(Cancelled("a bucket's join closed early")));
    thread_.join();
  }
  std::optional<Batch> next() override {
    if (!rest_ || rest_->num_rows() == 0) {
      rest_ = hand_off_->take();
      if (!rest_) return std::nullopt;
    }
    if (rest_->num_rows() <= batch_rows_) return std::exchange(rest_, std::nullopt);
    Batch head = rest_->slice(0, batch_rows_);
    rest_ = rest_->slice(batch_rows_, rest_->num_rows() - batch_rows_);
    return head;
  }

 private:
  /// The join's own pipelines, one thread each: the bucket is this partition's work.
  void join() {
    std::exception_ptr error;
    try {
      const HandOffSink output(hand_off_);
      std::shared_ptr<const Source> carried;
      for (const Pipeline& pipeline : plan_.pipelines) {
        const Source& source = pipeline.source ? *pipeline.source : *carried;
        const Sink& sink = pipeline.breaker ? static_cast<const Sink&>(*pipeline.breaker)
                                            : static_cast<const Sink&>(output);
        auto state = sink.global_state(pipeline_partitions(pipeline, source));
        state->memory_budget_bytes = memory_budget_;
        run_pipeline_and_tails(context_, pipeline, source, sink, *state, 1);
        if (context_.cancelled()) break;
        if (pipeline.breaker) carried = pipeline.breaker->finalize(*state);
      }
      error = context_.error();
    } catch (...) {
      error = std::current_exception();
    }
    hand_off_->finish(error);
  }

  const NodePtr joined_;
  const PhysicalPlan plan_;
  const int64_t memory_budget_;
  const int64_t batch_rows_;
  std::vector<std::unique_ptr<ActorPool>> no_pools_;
  QueryContext context_{no_pools_};
  const std::shared_ptr<HandOff> hand_off_ = std::make_shared<HandOff>(kJoinedAhead);
  std::optional<Batch> rest_;  ///< the part of the batch taken last not yet returned
  std::thread thread_;         // last: it starts once the rest is made
};

}  // namespace

BucketJoinSource::BucketJoinSource(JoinShape join, std::shared_ptr<const JoinBuckets> left,
                                   std::shared_ptr<const JoinBuckets> right, int ranks, int rank,
                                   int per_rank, int64_t memory_budget)
    : join_(std::move(join)),
      left_(std::move(left)),
      right_(std::move(right)),
      ranks_(ranks),
      rank_(rank),
      per_rank_(per_rank),
      memory_budget_(memory_budget) {}

std::unique_ptr<BatchReader> BucketJoinSource::open(int p, int64_t batch_rows) const {
  if (p < 0 || p >= num_partitions() || home_rank(p) != rank_)
    throw Error("internal: rank " + std::to_string(rank_) + " opened bucket " + std::to_string(p) +
                " of a join, which rank " + std::to_string(home_rank(p)) + " holds");
  const int k = p / ranks_;
  std::map<std::string, std::string> names;  // right input name -> output name
  for (const auto& [output, input] : join_.right_columns) names[input] = output;
  const auto side = [k](const Schema& schema, const JoinBuckets& buckets) {
    return make_source(buckets.bucket(k, schema));
  };
  const NodePtr joined =
      make_join(side(join_.left, *left_), side(join_.right, *right_), join_.on, join_.type, names);
  if (!(joined->schema == join_.output))
    throw Error("internal: a bucket's join yields " + joined->schema.to_string() +
                ", the query's " + join_.output.to_string());
  return std::make_unique<JoinedRows>(joined, memory_budget_, batch_rows);
}

std::string BucketJoinSource::describe() const {
  std::string keys;
  for (const auto& k : join_.on) keys += (keys.empty() ? "" : ", ") + k;
  return std::string("JoinedBuckets ") + join_type_name(join_.type) + " join on (" + keys + "), " +
         std::to_string(ranks_) + " ranks x " + std::to_string(per_rank_) + " buckets";
}

}  // namespace ember
