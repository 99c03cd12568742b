// A small builder of logical plans for tests: one call per node, over a source given up front.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ember/expr.h"
#include "ember/udf.h"
#include "expr/expr_access.h"
#include "plan/logical_plan.h"
#include "udf/udf_access.h"

namespace ember::test {

/// A source that only has a schema (and partitions); plan tests never open it.
class SchemaSource : public Source {
 public:
  explicit SchemaSource(Schema schema, int partitions = 1, std::vector<std::string> files = {})
      : schema_(std::move(schema)), partitions_(partitions), files_(std::move(files)) {}
  const Schema& schema() const override { return schema_; }
  int num_partitions() const override { return partitions_; }
  std::unique_ptr<BatchReader> open(int, int64_t) const override { return nullptr; }
  std::string describe() const override { return "TestSource"; }
  void accept(SourceVisitor& v) const override { v.visit_intermediate(*this); }
  std::vector<std::string> files() const override { return files_; }

 private:
  Schema schema_;
  int partitions_;
  std::vector<std::string> files_;
};

/// PlanBuilder(schema).project({col("a")}).filter(col("a") > lit(1)).build()
class PlanBuilder {
 public:
  explicit PlanBuilder(std::shared_ptr<const Source> source)
      : node_(make_source(std::move(source))) {}
  explicit PlanBuilder(Schema schema)
      : PlanBuilder(std::make_shared<SchemaSource>(std::move(schema))) {}

  PlanBuilder& project(const std::vector<Expr>& exprs) {
    node_ = make_project(node_, nodes(exprs));
    return *this;
  }
  PlanBuilder& filter(const Expr& predicate) {
    node_ = make_filter(node_, detail::ExprAccess::node(predicate));
    return *this;
  }
  PlanBuilder& limit(int64_t n) {
    node_ = make_limit(node_, n);
    return *this;
  }
  PlanBuilder& repartition(int n) {
    node_ = make_repartition(node_, n);
    return *this;
  }
  PlanBuilder& aggregate(const std::vector<Expr>& aggregates) {
    node_ = make_aggregate(node_, nodes(aggregates));
    return *this;
  }
  /// An ActorPoolProject calling `udf` on input columns `args`, appending `out`.
  PlanBuilder& pool(const Udf& udf, const std::vector<std::string>& args, const std::string& out) {
    node_ = make_actor_pool_project(node_, detail::UdfAccess::spec(udf), args, args, out);
    return *this;
  }
  NodePtr build() const { return node_; }

 private:
  static std::vector<ExprPtr> nodes(const std::vector<Expr>& exprs) {
    std::vector<ExprPtr> out;
    for (const auto& e : exprs) out.push_back(detail::ExprAccess::node(e));
    return out;
  }
  NodePtr node_;
};

/// A stateful UDF returning int64 (never constructed by plan tests).
struct Identity {
  explicit Identity(const InitArgs&) {}
  Column operator()(const Batch& b) { return b.column(0); }
};
inline Udf stateful_udf(const std::string& name = "ident") {
  return Udf::cls<Identity>(name).returns(int64());
}

/// The describe() line of each node, root first, in a depth-first walk.
inline std::vector<std::string> lines(const NodePtr& plan) {
  std::vector<std::string> out;
  for (const LogicalNode* n = plan.get();; n = &n->child()) {
    out.push_back(n->describe());
    if (n->children.empty()) break;
  }
  return out;
}

}  // namespace ember::test
