// The explode node: the list column's type becomes its element type.
#include "plan/nodes/explode_node.h"

#include "ember/error.h"

namespace ember {

NodePtr ExplodeNode::with_children(std::vector<NodePtr> children) const {
  return make_explode(std::move(children.at(0)), column);
}

ColumnSet ExplodeNode::required_input(const ColumnSet& required) const {
  ColumnSet below = required;
  below.insert(column);  // it decides how many rows each input row becomes
  return below;
}

NodePtr make_explode(NodePtr input, std::string column) {
  const int i = input->schema.index_of(column);
  if (i < 0) {
    throw InvalidArgument("explode: unknown column '" + column +
                          "'; columns are: " + input->schema.to_string());
  }
  const DataType& t = input->schema.field(i).type;
  if (!t.is_list()) {
    throw TypeError("explode: column '" + column + "' is " + t.to_string() + ", not a list");
  }
  std::vector<Field> fields = input->schema.fields();
  fields[size_t(i)].type = t.element();
  auto n = std::make_shared<ExplodeNode>();
  n->schema = Schema(std::move(fields));
  n->column = std::move(column);
  n->children.push_back(std::move(input));
  return n;
}

}  // namespace ember
