// The physical plan: pipelines of operators between sources and sinks, and the actor pools.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "plan/logical_plan.h"

namespace ember {

/// One operator of a pipeline. Plain data; per-partition state lives in the driver.
struct PhysicalOp {
  enum class Kind { Project, Filter, ActorPool };
  Kind kind = Kind::Project;
  Schema schema;                ///< output schema
  std::vector<ExprPtr> exprs;   ///< Project
  ExprPtr predicate;            ///< Filter
  int pool = -1;                ///< ActorPool: index into PhysicalPlan::pools
  std::vector<int> arg_indices; ///< ActorPool: input columns sent to the actors
  std::vector<std::string> arg_names;
};

/// How a pipeline ends: in the query's sink, or in a breaker whose output feeds the next one.
enum class PipelineEnd { Output, Limit, Repartition };

struct Pipeline {
  std::shared_ptr<const Source> source;  ///< null: the previous pipeline's output
  std::vector<PhysicalOp> ops;
  PipelineEnd end = PipelineEnd::Output;
  int64_t limit = 0;       ///< PipelineEnd::Limit
  int num_partitions = 0;  ///< PipelineEnd::Repartition
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
