// Struct field selection over the nested node tree; see parquet_struct_fields.h.
#include "io/parquet/parquet_struct_fields.h"

#include <stdexcept>
#include <utility>

#include "io/parquet/parquet_nested.h"

namespace ember::parquet {

namespace {

/// Renumbers the leaves under `node` as the positions of `kept` they get, appending them.
void keep_leaves(NestedNode& node, const std::vector<LeafColumn>& from,
                 std::vector<LeafColumn>& kept) {
  const int first = static_cast<int>(kept.size());
  if (node.kind == NestedNode::Kind::Leaf) {
    kept.push_back(from[size_t(node.leaf)]);
    node.leaf = first;
  }
  for (NestedNode& child : node.children) keep_leaves(child, from, kept);
  node.first_leaf = first;  // every leaf under a node has its slots' levels
}

}  // namespace

LeafColumn keep_struct_fields(const LeafColumn& col, const std::set<std::string>& keep) {
  if (!col.nested || col.nested->kind != NestedNode::Kind::Struct)
    throw std::invalid_argument("column '" + col.field.name + "' is not a struct");
  const std::vector<Field>& fields = col.field.type.fields();
  for (const std::string& name : keep)
    if (col.field.type.field_index(name) < 0)
      throw std::invalid_argument("struct column '" + col.field.name + "' has no field '" + name +
                                  "'");
  NestedNode root = *col.nested;
  root.children.clear();
  std::vector<Field> kept_fields;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!keep.count(fields[i].name)) continue;
    root.children.push_back(col.nested->children[i]);
    kept_fields.push_back(fields[i]);
  }
  if (root.children.empty()) throw std::invalid_argument("no field of the struct kept");
  root.type = struct_(std::move(kept_fields));
  LeafColumn out = col;
  out.field.type = root.type;
  out.leaves.clear();
  keep_leaves(root, col.leaves, out.leaves);
  out.leaf_index = out.leaves.front().leaf_index;
  out.element = out.leaves.front().element;
  out.nested = std::make_shared<const NestedNode>(std::move(root));
  return out;
}

const LeafColumn* struct_leaf(const LeafColumn& col, const std::vector<std::string>& path) {
  if (!col.nested) return nullptr;
  const NestedNode* node = col.nested.get();
  for (const std::string& name : path) {
    if (node->kind != NestedNode::Kind::Struct) return nullptr;
    const int i = node->type.field_index(name);
    if (i < 0 || static_cast<size_t>(i) >= node->children.size()) return nullptr;
    node = &node->children[size_t(i)];
  }
  if (node->kind != NestedNode::Kind::Leaf) return nullptr;
  return &col.leaves[size_t(node->leaf)];
}

}  // namespace ember::parquet
