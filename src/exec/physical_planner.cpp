// Bottom-up translation: a source starts a pipeline, a streaming node adds an operator to it,
// a breaker ends it and starts the next one reading the breaker's output.
#include "exec/physical_planner.h"

#include "ember/error.h"
#include "exec/operators/actor_pool_operator.h"
#include "exec/operators/explode_operator.h"
#include "exec/operators/filter_operator.h"
#include "exec/operators/join_probe_operator.h"
#include "exec/operators/project_operator.h"
#include "exec/operators/url_download_operator.h"
#include "exec/sinks/aggregate_sink.h"
#include "exec/sinks/group_by_sink.h"
#include "exec/sinks/join_build_sink.h"
#include "exec/sinks/join_tail_sink.h"
#include "exec/sinks/limit_sink.h"
#include "exec/sinks/repartition_sink.h"
#include "exec/sinks/shuffle_sink.h"
#include "exec/sinks/sort_sink.h"
#include "exec/sources/bucket_join_source.h"
#include "exec/sources/grace_join_source.h"
#include "expr/expr_tree.h"
#include "plan/logical_plan.h"

namespace ember {

namespace {

class PhysicalPlanner final : NodeVisitor {
 public:
  explicit PhysicalPlanner(const ShuffleChoice& shuffle) : shuffle_(shuffle) {}
  PhysicalPlan build(const LogicalNode& root) {
    translate_tree(root);
    plan_.schema = root.schema;
    return std::move(plan_);
  }

 private:
  /// The node with everything below it: each rule translates its input first (a join its two
  /// sides, in the order it needs).
  void translate_tree(const LogicalNode& n) {
    n.accept(*this);
    if (!plan_.pipelines.empty() && !plan_.pipelines.back().breaker)
      plan_.pipelines.back().schema = n.schema;
  }

  // The rules, one per node kind.
  void visit(const SourceNode& s) override {
    start(s.source, s.schema);
    step(s);
  }
  void visit(const ProjectNode& p) override {
    translate_tree(p.child());
    current().add(std::make_shared<ProjectOperator>(p.exprs, p.child().schema, p.schema));
    step(p);
  }
  void visit(const FilterNode& f) override {
    translate_tree(f.child());
    current().add(std::make_shared<FilterOperator>(f.predicate, f.child().schema));
    step(f);
  }
  void visit(const ActorPoolProjectNode& a) override {
    translate_tree(a.child());
    add_pool(a);
    step(a);
  }
  void visit(const UrlDownloadNode& d) override {
    translate_tree(d.child());
    const int download = static_cast<int>(plan_.downloads.size());
    plan_.downloads.push_back("url_download(" + d.url_name + ")");
    current().add(std::make_shared<UrlDownloadOperator>(
        download, d.child().schema.index_of(d.url_column), d.url_name, d.options, d.schema));
    step(d);
  }
  void visit(const ExplodeNode& x) override {
    translate_tree(x.child());
    current().add(std::make_shared<ExplodeOperator>(x.child().schema.index_of(x.column), x.schema));
    step(x);
  }
  void visit(const LimitNode& l) override {
    translate_tree(l.child());
    step(l);
    end(std::make_shared<LimitSink>(l.limit, l.schema), l.schema);
  }
  void visit(const RepartitionNode& r) override {
    translate_tree(r.child());
    step(r);
    end(std::make_shared<RepartitionSink>(r.num_partitions, r.schema), r.schema);
  }
  void visit(const AggregateNode& g) override {
    translate_tree(g.child());
    step(g);
    add_aggregate(g);
  }
  void visit(const GroupByNode& g) override {
    translate_tree(g.child());
    step(g);
    end(std::make_shared<GroupBySink>(g.keys, g.aggregates, g.child().schema, g.schema), g.schema);
  }
  void visit(const SortNode& s) override {
    translate_tree(s.child());
    step(s);
    add_sort(s.keys, -1, s.schema);
  }
  void visit(const TopKNode& t) override {
    translate_tree(t.child());
    step(t);
    add_sort(t.keys, t.k, t.schema);
  }
  void visit(const JoinNode& j) override { translate_join(j); }

  /// A global aggregate; one that needs per-value state (count_distinct, first, list) runs as
  /// a group-by without keys.
  void add_aggregate(const AggregateNode& g) {
    bool grouped = false;
    for (const auto& e : g.exprs) {
      const AggFunc f = aggregate_of(*e).agg;
      grouped = grouped || f == AggFunc::CountDistinct || f == AggFunc::First || f == AggFunc::List;
    }
    if (grouped)
      return end(std::make_shared<GroupBySink>(std::vector<ExprPtr>{}, g.exprs, g.child().schema,
                                               g.schema),
                 g.schema);
    end(std::make_shared<AggregateSink>(g.exprs, g.child().schema, g.schema), g.schema);
  }

  /// A hash join: the right side's pipelines end in the build; the left side's last pipeline
  /// probes as it streams; a right or full join then adds the unmatched build rows.
  void translate_join(const JoinNode& j) {
    if (&j == shuffle_.join) return translate_shuffled_join(j);
    JoinLayout layout;
    layout.type = j.type;
    layout.output = j.schema;
    layout.left_columns = j.left().schema.num_fields();
    for (const auto& k : j.on) {
      layout.left_keys.push_back(j.left().schema.index_of(k));
      layout.right_keys.push_back(j.right().schema.index_of(k));
    }
    for (int c = layout.left_columns; c < j.schema.num_fields(); ++c)
      layout.right_columns.push_back(
          j.right().schema.index_of(j.right_columns.at(j.schema.field(c).name)));
    auto table = std::make_shared<JoinHashTable>(layout.right_keys);
    auto spill = std::make_shared<JoinSpill>(layout.right_keys, j.right().schema, layout.left_keys,
                                             j.left().schema);

    translate_tree(j.right());
    current().steps.push_back("hash table of the right side for " + j.describe());
    end(std::make_shared<JoinBuildSink>(table, spill, j.right().schema), j.right().schema);
    plan_.pipelines.pop_back();  // the probe side starts from its own source
    translate_tree(j.left());
    Pipeline& probe = current();
    probe.add(std::make_shared<JoinProbeOperator>(table, layout, spill));
    step(j);
    // Past the budget the build spills; its partitions are joined after the probe side ended.
    probe.tails.push_back({std::make_shared<GraceJoinSource>(spill, layout),
                           probe.segments.size() - 1, probe.segments.back().size()});
    if (j.type == JoinType::Right || j.type == JoinType::Full) {
      current().steps.push_back("the right side's unmatched rows");
      end(std::make_shared<JoinTailSink>(table, layout), j.schema);
    }
  }

  /// A join as a hash exchange of both sides: each side's pipeline ends in its exchange (the
  /// right side first, as a local join builds it first), and the join reads the buckets.
  void translate_shuffled_join(const JoinNode& j) {
    ShuffledJoinPipelines at;
    at.join = &j;
    JoinShape shape{j.on, j.type, j.right_columns, j.left().schema, j.right().schema, j.schema};
    auto exchange = [&](const LogicalNode& side, size_t* index) {
      auto kept = std::make_shared<JoinBuckets>();
      std::vector<int> keys;
      for (const auto& k : j.on) keys.push_back(side.schema.index_of(k));
      translate_tree(side);
      current().steps.push_back("hash exchange of the " +
                                std::string(&side == &j.left() ? "left" : "right") +
                                " side by key for " + j.describe());
      end(std::make_shared<ShuffleSink>(std::move(keys), side.schema, shuffle_.per_rank, kept),
          side.schema);
      plan_.pipelines.pop_back();  // the join reads the buckets, not this breaker's output
      *index = plan_.pipelines.size() - 1;
      return kept;
    };
    auto right = exchange(j.right(), &at.right);
    auto left = exchange(j.left(), &at.left);
    start(std::make_shared<BucketJoinSource>(std::move(shape), std::move(left), std::move(right),
                                             shuffle_.ranks, shuffle_.rank, shuffle_.per_rank,
                                             shuffle_.memory_budget),
          j.schema);
    at.joined = plan_.pipelines.size() - 1;
    plan_.shuffle = at;
    step(j);
  }

  /// A sort, or a top-k when `limit` >= 0.
  void add_sort(const std::vector<SortSpec>& keys, int64_t limit, const Schema& schema) {
    std::vector<ExprPtr> exprs;
    std::vector<KeyOrder> order;
    for (const auto& k : keys) {
      exprs.push_back(k.expr);
      order.push_back({k.descending, k.nulls_first});
    }
    end(std::make_shared<SortSink>(std::move(exprs), std::move(order), schema, limit), schema);
  }

  void add_pool(const ActorPoolProjectNode& n) {
    const int pool = static_cast<int>(plan_.pools.size());
    plan_.pools.push_back(n.udf);
    if (current().first_pool < 0) current().first_pool = pool;
    std::vector<int> arg_indices;
    for (const auto& a : n.arg_columns) arg_indices.push_back(n.child().schema.index_of(a));
    current().add(
        std::make_shared<ActorPoolOperator>(pool, std::move(arg_indices), n.arg_names, n.schema));
  }

  void start(std::shared_ptr<const Source> source, const Schema& schema) {
    Pipeline p;
    p.source = std::move(source);
    p.schema = schema;
    p.input = schema;
    plan_.pipelines.push_back(std::move(p));
  }

  /// Ends the current pipeline in `breaker`; the next one reads what it gathered.
  void end(std::shared_ptr<const PipelineBreaker> breaker, const Schema& output) {
    current().breaker = std::move(breaker);
    start(nullptr, output);
  }

  Pipeline& current() { return plan_.pipelines.back(); }
  /// What `n` does, in the current pipeline's steps (explain()).
  void step(const LogicalNode& n) { current().steps.push_back(n.describe()); }

  const ShuffleChoice& shuffle_;
  PhysicalPlan plan_;
};

}  // namespace

PhysicalPlan plan_physical(const LogicalNode& optimized, const ShuffleChoice& shuffle) {
  return PhysicalPlanner(shuffle).build(optimized);
}

size_t leftmost_pipeline(const LogicalNode& optimized, const PhysicalPlan& plan) {
  if (plan.shuffle) return plan.shuffle->joined;
  const LogicalNode* leaf = &optimized;
  while (!leaf->children.empty()) leaf = leaf->children.front().get();
  // Every leaf of a logical plan is a source.
  const Source* source = static_cast<const SourceNode&>(*leaf).source.get();
  for (size_t k = 0; k < plan.pipelines.size(); ++k)
    if (plan.pipelines[k].source.get() == source) return k;
  return 0;
}

}  // namespace ember
