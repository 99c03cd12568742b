// Translation of an optimized logical plan into pipelines.
#include "exec/physical_plan.h"

#include "ember/error.h"
#include "expr/fused_program.h"

namespace ember {

namespace {

PhysicalOp translate_op(const LogicalNode& n, PhysicalPlan& plan) {
  PhysicalOp op;
  op.schema = n.schema;
  switch (n.kind) {
    case NodeKind::Project:
      op.kind = PhysicalOp::Kind::Project;
      op.exprs = n.exprs;
      // Compiled once here, not per batch; what the compiler does not cover stays null.
      for (const auto& e : n.exprs)
        op.programs.push_back(FusedProgram::compile(*e, n.child().schema));
      break;
    case NodeKind::Filter:
      op.kind = PhysicalOp::Kind::Filter;
      op.predicate = n.predicate;
      op.predicate_program = FusedProgram::compile(*n.predicate, n.child().schema);
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

PipelineEnd end_of(NodeKind breaker) {
  switch (breaker) {
    case NodeKind::Limit:
      return PipelineEnd::Limit;
    case NodeKind::Repartition:
      return PipelineEnd::Repartition;
    case NodeKind::Aggregate:
      return PipelineEnd::Aggregate;
    default:
      throw Error("internal: node kind is not a pipeline breaker");
  }
}

bool is_breaker(NodeKind kind) {
  return kind == NodeKind::Limit || kind == NodeKind::Repartition || kind == NodeKind::Aggregate;
}

void build(const LogicalNode& top, PipelineEnd end, PhysicalPlan& plan);

/// Appends the pipelines that compute the input of `breaker` and end in it.
void build_breaker(const LogicalNode& breaker, PhysicalPlan& plan) {
  build(breaker.child(), end_of(breaker.kind), plan);
  Pipeline& p = plan.pipelines.back();
  p.limit = breaker.limit;
  p.num_partitions = breaker.num_partitions;
  if (breaker.kind == NodeKind::Aggregate) {
    p.aggregates = breaker.exprs;
    p.aggregate_schema = breaker.schema;
  }
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
    build_breaker(*n, plan);  // a breaker below: its input is a pipeline of its own
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
  if (is_breaker(optimized.kind)) {
    // The query ends in a breaker: run it, then stream its output to the sink.
    build_breaker(optimized, plan);
    Pipeline out;
    out.schema = optimized.schema;
    plan.pipelines.push_back(std::move(out));
  } else {
    build(optimized, PipelineEnd::Output, plan);
  }
  return plan;
}

}  // namespace ember
