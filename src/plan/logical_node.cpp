// The generic parts of logical plan nodes: defaults of the rewrite hooks, walks, printing.
#include "plan/logical_node.h"

#include <sstream>

#include "ember/error.h"

namespace ember {

NodePtr LogicalNode::without_unused_outputs(const ColumnSet&) const { return shared_from_this(); }

NodePtr LogicalNode::with_expressions(NodePtr input, std::vector<ExprPtr> exprs) const {
  // Broken invariant: a rewrite gave expressions to a node that evaluates none.
  if (!exprs.empty()) throw Error("internal: " + describe() + " evaluates no expressions");
  return with_children({std::move(input)});
}

NodePtr LogicalNode::over(std::vector<NodePtr> new_children) const {
  if (new_children == children) return shared_from_this();
  return with_children(std::move(new_children));
}

std::vector<std::string> source_files(const LogicalNode& root) {
  std::vector<std::string> files;
  std::set<std::string> seen;
  std::vector<const LogicalNode*> stack{&root};
  while (!stack.empty()) {
    const LogicalNode* n = stack.back();
    stack.pop_back();
    for (std::string& f : n->files())
      if (seen.insert(f).second) files.push_back(std::move(f));
    for (auto it = n->children.rbegin(); it != n->children.rend(); ++it) stack.push_back(it->get());
  }
  return files;
}

namespace {

void print(const LogicalNode& n, int depth, std::ostringstream& out) {
  out << std::string(static_cast<size_t>(depth) * 2, ' ') << n.describe() << "\n";
  for (const auto& c : n.children) print(*c, depth + 1, out);
}

}  // namespace

std::string to_string(const LogicalNode& node) {
  std::ostringstream out;
  print(node, 0, out);
  return out.str();
}

}  // namespace ember
