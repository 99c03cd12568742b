// The written schema: one depth-first walk of an ember type that emits the schema elements
// and, for each primitive it reaches, the leaf's path, steps and maximum levels.
#include "io/parquet/parquet_write_schema.h"

#include "ember/error.h"

namespace ember::parquet {

namespace {

// What the walk has seen above the node it visits, and what it collects.
struct SchemaWalk {
  const Field& top;
  std::vector<SchemaElement>* elements;
  std::vector<WriteLeaf>* leaves;
  std::vector<std::string> path;
  std::vector<int> steps;
  int def = 0, rep = 0;

  [[noreturn]] void refuse(const std::string& why) const {
    throw InvalidArgument("Parquet cannot hold column '" + top.name + "' of type " +
                          top.type.to_string() + why);
  }

  SchemaElement group(const std::string& name, int32_t repetition, int children) const {
    SchemaElement e;
    e.name = name;
    e.repetition = repetition;
    e.num_children = children;
    return e;
  }

  // Visits the node `t` called `name`; its level counts go up by what `repetition` adds.
  void visit(const DataType& t, const std::string& name, int32_t repetition) {
    path.push_back(name);
    def += repetition == kRequired ? 0 : 1;
    rep += repetition == kRepeated ? 1 : 0;
    switch (t.id()) {
      case TypeId::Struct:
        visit_struct(t, name, repetition);
        break;
      case TypeId::List:
      case TypeId::FixedSizeList:
        visit_list(t, name, repetition);
        break;
      case TypeId::Map:
        visit_map(t, name, repetition);
        break;
      default:
        elements->push_back(leaf_element(t, name, repetition, top.name, top.type));
        leaves->push_back(WriteLeaf{path, steps, elements->back(), def, rep});
    }
    def -= repetition == kRequired ? 0 : 1;
    rep -= repetition == kRepeated ? 1 : 0;
    path.pop_back();
  }

  void visit_struct(const DataType& t, const std::string& name, int32_t repetition) {
    const std::vector<Field>& fields = t.fields();
    if (fields.empty()) refuse(" (a struct needs at least one field)");
    elements->push_back(group(name, repetition, static_cast<int>(fields.size())));
    for (size_t i = 0; i < fields.size(); ++i) {
      steps.push_back(static_cast<int>(i));
      visit(fields[i].type, fields[i].name, kOptional);
      steps.pop_back();
    }
  }

  // optional group name (LIST) { repeated group list { optional <element> element; } }
  void visit_list(const DataType& t, const std::string& name, int32_t repetition) {
    SchemaElement outer = group(name, repetition, 1);
    outer.converted = kList;
    outer.logical.kind = Logical::kList;
    elements->push_back(outer);
    elements->push_back(group("list", kRepeated, 1));
    steps.push_back(0);
    path.push_back("list");
    ++def, ++rep;
    visit(t.element(), "element", kOptional);
    --def, --rep;
    path.pop_back();
    steps.pop_back();
  }

  // optional group name (MAP) { repeated group key_value { required <k> key; optional <v>
  // value; } }
  void visit_map(const DataType& t, const std::string& name, int32_t repetition) {
    SchemaElement outer = group(name, repetition, 1);
    outer.converted = kMap;
    outer.logical.kind = Logical::kMap;
    elements->push_back(outer);
    elements->push_back(group("key_value", kRepeated, 2));
    const std::vector<Field>& kv = t.element().fields();
    path.push_back("key_value");
    ++def, ++rep;
    for (int i = 0; i < 2; ++i) {
      steps.push_back(i);
      visit(kv.at(size_t(i)).type, i == 0 ? "key" : "value", i == 0 ? kRequired : kOptional);
      steps.pop_back();
    }
    --def, --rep;
    path.pop_back();
  }
};

}  // namespace

SchemaElement leaf_element(const DataType& t, const std::string& name, int32_t repetition,
                           const std::string& column, const DataType& column_type) {
  SchemaElement e;
  e.name = name;
  e.repetition = repetition;
  switch (t.id()) {
    case TypeId::Boolean:
      e.type = kBoolean;
      break;
    case TypeId::Int32:
      e.type = kInt32;
      break;
    case TypeId::Int64:
      e.type = kInt64;
      break;
    case TypeId::Float32:
      e.type = kFloat;
      break;
    case TypeId::Float64:
      e.type = kDouble;
      break;
    case TypeId::Utf8:
      e.type = kByteArray;
      e.converted = kUtf8;
      e.logical.kind = Logical::kString;
      break;
    case TypeId::Binary:
      e.type = kByteArray;
      break;
    case TypeId::Date32:
      e.type = kInt32;
      e.converted = kDate;
      e.logical.kind = Logical::kDate;
      break;
    case TypeId::Timestamp:
      e.type = kInt64;
      e.converted = kTimestampMicros;
      e.logical.kind = Logical::kTimestamp;
      e.logical.time_unit = 2;
      break;
    default:
      throw InvalidArgument("Parquet cannot hold column '" + column + "' of type " +
                            column_type.to_string());
  }
  return e;
}

void append_schema_elements(const Field& field, std::vector<SchemaElement>* out) {
  std::vector<WriteLeaf> leaves;
  SchemaWalk{field, out, &leaves, {}, {}}.visit(field.type, field.name, kOptional);
}

std::vector<WriteLeaf> write_leaves(const Field& field) {
  std::vector<SchemaElement> elements;
  std::vector<WriteLeaf> leaves;
  SchemaWalk{field, &elements, &leaves, {}, {}}.visit(field.type, field.name, kOptional);
  return leaves;
}

}  // namespace ember::parquet
