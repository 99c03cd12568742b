// A bucket's join, run here as a small local query over the bucket's rows of both sides.
#include "exec/sources/bucket_join_source.h"

#include "exec/physical_planner.h"
#include "exec/pipeline_runner.h"
#include "exec/query_context.h"
#include "exec/sinks/collect_sink.h"
#include "exec/sources/table_source.h"
#include "plan/nodes/join_node.h"
#include "plan/nodes/source_node.h"

namespace ember {

namespace {

/// Reads the joined rows it holds.
class JoinedRows final : public BatchReader {
 public:
  JoinedRows(const Table& rows, int64_t batch_rows)
      : rows_(std::make_shared<TableSource>(rows, 1, "JoinBucket")),
        reader_(rows_->open(0, batch_rows)) {}
  std::optional<Batch> next() override { return reader_->next(); }

 private:
  std::shared_ptr<const Source> rows_;
  std::unique_ptr<BatchReader> reader_;
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
  // The join's own pipelines, one thread: the bucket is this partition's work.
  const PhysicalPlan plan = plan_physical(*joined);
  std::vector<std::unique_ptr<ActorPool>> none;
  QueryContext context(none);
  const CollectSink output(plan.schema);
  std::shared_ptr<const Source> carried;
  Table result(plan.schema, {});
  for (const Pipeline& pipeline : plan.pipelines) {
    const Source& source = pipeline.source ? *pipeline.source : *carried;
    const Sink& sink = pipeline.breaker ? static_cast<const Sink&>(*pipeline.breaker)
                                        : static_cast<const Sink&>(output);
    auto state = sink.global_state(pipeline_partitions(pipeline, source));
    state->memory_budget_bytes = memory_budget_;
    run_pipeline_and_tails(context, pipeline, source, sink, *state, 1);
    if (std::exception_ptr e = context.error()) std::rethrow_exception(e);
    if (pipeline.breaker)
      carried = pipeline.breaker->finalize(*state);
    else
      result = output.finalize(*state);
  }
  return std::make_unique<JoinedRows>(result, batch_rows);
}

std::string BucketJoinSource::describe() const {
  std::string keys;
  for (const auto& k : join_.on) keys += (keys.empty() ? "" : ", ") + k;
  return std::string("JoinedBuckets ") + join_type_name(join_.type) + " join on (" + keys + "), " +
         std::to_string(ranks_) + " ranks x " + std::to_string(per_rank_) + " buckets";
}

}  // namespace ember
