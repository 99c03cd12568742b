// One method per kind of logical plan node: what walks a plan by kind (the physical planner,
// the cluster runner's encoder) implements it. A new kind of node adds a method here, and every
// visitor then fails to compile until it says what the new kind means to it.
#pragma once

namespace ember {

struct ActorPoolProjectNode;
struct AggregateNode;
struct ExplodeNode;
struct FilterNode;
struct GroupByNode;
struct JoinNode;
struct LimitNode;
struct ProjectNode;
struct RepartitionNode;
struct SortNode;
struct SourceNode;
struct TopKNode;
struct UrlDownloadNode;

class NodeVisitor {
 public:
  virtual ~NodeVisitor() = default;
  virtual void visit(const SourceNode& n) = 0;
  virtual void visit(const ProjectNode& n) = 0;
  virtual void visit(const FilterNode& n) = 0;
  virtual void visit(const ActorPoolProjectNode& n) = 0;
  virtual void visit(const UrlDownloadNode& n) = 0;
  virtual void visit(const ExplodeNode& n) = 0;
  virtual void visit(const LimitNode& n) = 0;
  virtual void visit(const RepartitionNode& n) = 0;
  virtual void visit(const AggregateNode& n) = 0;
  virtual void visit(const GroupByNode& n) = 0;
  virtual void visit(const SortNode& n) = 0;
  virtual void visit(const TopKNode& n) = 0;
  virtual void visit(const JoinNode& n) = 0;
};

}  // namespace ember
