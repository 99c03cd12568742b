// The physical plan: pipelines of operators between sources and sinks, and the actor pools.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "plan/logical_plan.h"

namespace ember {

class FusedProgram;

/// One operator of a pipeline. Plain data; per-partition state lives in the driver.
struct PhysicalOp {
  enum class Kind { Project, Filter, ActorPool };
  Kind kind = Kind::Project;
  Schema schema;                ///< output schema
  std::vector<ExprPtr> exprs;   ///< Project
  ExprPtr predicate;            ///< Filter
  /// Project: exprs compiled for the input schema, one per expr (null: evaluated node by node).
  std::vector<std::shared_ptr<const FusedProgram>> programs;
  std::shared_ptr<const FusedProgram> predicate_program;  ///< Filter: compiled, or null
  int pool = -1;                ///< ActorPool: index into PhysicalPlan::pools
  std::vector<int> arg_indices; ///< ActorPool: input columns sent to the actors
  std::vector<std::string> arg_names;
};

/// How a pipeline ends: in the query's sink, or in a breaker whose output feeds the next one.
enum class PipelineEnd { Output, Limit, Repartition, Aggregate };

struct Pipeline {
  std::shared_ptr<const Source> source;  ///< null: the previous pipeline's output
  std::vector<PhysicalOp> ops;
  PipelineEnd end = PipelineEnd::Output;
  int64_t limit = 0;       ///< PipelineEnd::Limit
  int num_partitions = 0;  ///< PipelineEnd::Repartition
  std::vector<ExprPtr> aggregates;  ///< PipelineEnd::Aggregate: over this pipeline's output
  Schema aggregate_schema;          ///< PipelineEnd::Aggregate: the one-row result's schema
  Schema schema;           ///< output schema
};

struct PhysicalPlan {
  std::vector<Pipeline> pipelines;  ///< run in order
  std::vector<std::shared_ptr<const UdfSpec>> pools;
  Schema schema;
};

/// Translates an optimized logical plan.
PhysicalPlan plan_physical(const LogicalNode& optimized);

}  // namespace ember
