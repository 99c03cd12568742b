// Global aggregation: evaluate each aggregate's input per batch, accumulate, merge at the end.
#include "exec/aggregate_sink.h"

#include "expr/evaluate.h"
#include "expr/type_check.h"

namespace ember {

class AggregateSink::Part : public PartitionSink {
 public:
  Part(AggregateSink& sink, int partition)
      : sink_(sink), partition_(partition), accumulators_(sink.prototype_) {}

  void consume(const Batch& batch) override {
    for (size_t i = 0; i < accumulators_.size(); ++i)
      accumulators_[i].update(evaluate(*sink_.inputs_[i], batch));
  }

  void finish() override {
    std::lock_guard<std::mutex> lock(sink_.mu_);
    sink_.partials_[static_cast<size_t>(partition_)] = std::move(accumulators_);
  }

 private:
  AggregateSink& sink_;
  int partition_;
  std::vector<Accumulator> accumulators_;
};

AggregateSink::AggregateSink(std::vector<ExprPtr> aggregates, const Schema& input, Schema result,
                             int num_partitions)
    : result_(std::move(result)), partials_(static_cast<size_t>(num_partitions)) {
  for (size_t i = 0; i < aggregates.size(); ++i) {
    const ExprNode& a = aggregate_of(*aggregates[i]);
    inputs_.push_back(a.children[0]);
    prototype_.emplace_back(a.agg, infer_type(*a.children[0], input),
                            result_.field(static_cast<int>(i)).type, to_string(*aggregates[i]));
  }
}

std::unique_ptr<PartitionSink> AggregateSink::open(int partition) {
  return std::make_unique<Part>(*this, partition);
}

Table AggregateSink::result() const {
  std::vector<Accumulator> total = prototype_;
  for (const auto& part : partials_) {
    if (!part) continue;
    for (size_t i = 0; i < total.size(); ++i) total[i].merge((*part)[i]);
  }
  std::vector<Column> columns;
  for (const Accumulator& a : total) columns.push_back(a.finish());
  return Table(result_, {Batch(result_, std::move(columns))});
}

}  // namespace ember
