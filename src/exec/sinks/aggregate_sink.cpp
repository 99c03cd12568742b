// Global aggregation: evaluate each aggregate's input per batch, accumulate, merge at the end.
#include "exec/sinks/aggregate_sink.h"

#include <mutex>
#include <optional>

#include "exec/sources/table_source.h"
#include "expr/evaluate.h"
#include "expr/expr_text.h"
#include "expr/expr_tree.h"
#include "expr/type_check.h"
#include "udf/value_codec.h"

namespace ember {

namespace {

struct Partials final : GlobalSinkState {
  explicit Partials(int num_partitions) : by_partition(static_cast<size_t>(num_partitions)) {}
  std::mutex mu;
  std::vector<std::optional<std::vector<Accumulator>>> by_partition;  ///< guarded by mu
};

struct PartitionAccumulators final : LocalSinkState {
  PartitionAccumulators(int p, std::vector<Accumulator> a)
      : partition(p), accumulators(std::move(a)) {}
  int partition;
  std::vector<Accumulator> accumulators;
};

}  // namespace

AggregateSink::AggregateSink(std::vector<ExprPtr> aggregates, const Schema& input, Schema result)
    : result_(std::move(result)) {
  for (size_t i = 0; i < aggregates.size(); ++i) {
    const ExprNode& a = aggregate_of(*aggregates[i]);
    inputs_.push_back(a.children[0]);
    prototype_.emplace_back(a.agg, infer_type(*a.children[0], input),
                            result_.field(static_cast<int>(i)).type, to_string(*aggregates[i]));
  }
}

std::unique_ptr<GlobalSinkState> AggregateSink::global_state(int num_partitions) const {
  return std::make_unique<Partials>(num_partitions);
}

std::unique_ptr<LocalSinkState> AggregateSink::local_state(GlobalSinkState&, int partition) const {
  return std::make_unique<PartitionAccumulators>(partition, prototype_);
}

void AggregateSink::sink(GlobalSinkState&, LocalSinkState& local, const Batch& batch) const {
  auto& acc = local.as<PartitionAccumulators>().accumulators;
  for (size_t i = 0; i < acc.size(); ++i) acc[i].update(evaluate(*inputs_[i], batch));
}

void AggregateSink::combine(GlobalSinkState& global, LocalSinkState& local) const {
  auto& partials = global.as<Partials>();
  auto& part = local.as<PartitionAccumulators>();
  std::lock_guard<std::mutex> lock(partials.mu);
  partials.by_partition[static_cast<size_t>(part.partition)] = std::move(part.accumulators);
}

std::string AggregateSink::encode_partial(GlobalSinkState&, LocalSinkState& local) const {
  process::MessageWriter out;
  for (const Accumulator& a : local.as<PartitionAccumulators>().accumulators) {
    const Accumulator::State s = a.state();
    out.put(s.count);
    out.put(s.int_sum);
    out.put(s.float_sum);
    put_value(out, s.best);
  }
  return out.bytes();
}

void AggregateSink::adopt_partial(GlobalSinkState&, LocalSinkState& local,
                                  std::string_view bytes) const {
  auto in = process::MessageReader::unframed(bytes);
  for (Accumulator& a : local.as<PartitionAccumulators>().accumulators) {
    Accumulator::State s;
    s.count = in.get<int64_t>();
    s.int_sum = in.get<__int128>();
    s.float_sum = in.get<double>();
    s.best = get_value(in);
    a.set_state(std::move(s));
  }
  if (in.remaining() != 0) throw Error("a partition's aggregates followed by stray bytes");
}

std::shared_ptr<const Source> AggregateSink::finalize(GlobalSinkState& global) const {
  std::vector<Accumulator> total = prototype_;
  for (const auto& part : global.as<Partials>().by_partition) {
    if (!part) continue;
    for (size_t i = 0; i < total.size(); ++i) total[i].merge((*part)[i]);
  }
  std::vector<Column> columns;
  for (const Accumulator& a : total) columns.push_back(a.finish());
  return std::make_shared<TableSource>(Table(result_, {Batch(result_, std::move(columns))}), 1,
                                       "Aggregate");
}

}  // namespace ember
