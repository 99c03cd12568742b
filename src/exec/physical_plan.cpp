// Translation of an optimized logical plan into pipelines.
#include "exec/physical_plan.h"

#include "ember/error.h"

namespace ember {

namespace {

PhysicalOp translate_op(const LogicalNode& n, PhysicalPlan& plan) {
  PhysicalOp op;
  op.schema = n.schema;
  switch (n.kind) {
    case NodeKind::Project:
      op.kind = PhysicalOp::Kind::Project;
      op.exprs = n.exprs;
      break;
    case NodeKind::Filter:
      op.kind = PhysicalOp::Kind::Filter;
      op.predicate = n.predicate;
      break;
    case NodeKind::ActorPoolProject: {
      op.kind = PhysicalOp::Kind::ActorPool;
      op.pool = static_cast<int>(plan.pools.size());
      plan.pools.push_back(n.udf);
      const Schema& in = n.child().schema;
      for (const auto& a : n.arg_columns) op.arg_indices.push_back(in.index_of(a));
      op.arg_names = n.arg_names;
      break;
    }
    default:
      throw Error("internal: node kind cannot be a pipeline operator");
  }
  return op;
}

/// Builds the pipeline that ends at `top` (exclusive of breakers below it), appending the
/// pipelines it depends on first.
void build(const LogicalNode& top, PipelineEnd end, PhysicalPlan& plan) {
  std::vector<const LogicalNode*> chain;
  const LogicalNode* n = &top;
  while (n->kind == NodeKind::Project || n->kind == NodeKind::Filter ||
         n->kind == NodeKind::ActorPoolProject) {
    chain.push_back(n);
    n = &n->child();
  }
  Pipeline p;
  if (n->kind == NodeKind::Source) {
    p.source = n->source;
  } else {
    // A breaker below: its input is a pipeline of its own.
    build(n->child(), n->kind == NodeKind::Limit ? PipelineEnd::Limit : PipelineEnd::Repartition,
          plan);
    plan.pipelines.back().limit = n->limit;
    plan.pipelines.back().num_partitions = n->num_partitions;
  }
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) p.ops.push_back(translate_op(**it, plan));
  p.end = end;
  p.schema = top.schema;
  plan.pipelines.push_back(std::move(p));
}

}  // namespace

PhysicalPlan plan_physical(const LogicalNode& optimized) {
  PhysicalPlan plan;
  plan.schema = optimized.schema;
  if (optimized.kind == NodeKind::Limit || optimized.kind == NodeKind::Repartition) {
    // The query ends in a breaker: run it, then stream its output to the sink.
    build(optimized.child(),
          optimized.kind == NodeKind::Limit ? PipelineEnd::Limit : PipelineEnd::Repartition, plan);
    plan.pipelines.back().limit = optimized.limit;
    plan.pipelines.back().num_partitions = optimized.num_partitions;
    Pipeline out;
    out.schema = optimized.schema;
    plan.pipelines.push_back(std::move(out));
  } else {
    build(optimized, PipelineEnd::Output, plan);
  }
  return plan;
}

}  // namespace ember
