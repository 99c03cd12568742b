// Schema mapping: a depth-first walk of the flattened schema list.
#include "io/parquet/parquet_schema.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "io/duplicate_column_names.h"

namespace ember::parquet {

namespace {

bool is_decimal(const SchemaElement& e) {
  if (e.logical.kind != Logical::kDecimal && !(e.converted && *e.converted == kDecimal))
    return false;
  // The format puts decimals in integers and byte arrays only: a FLOAT or BOOLEAN column so
  // marked holds values narrower than the integers they would be read as.
  if (!e.type || (*e.type != kInt32 && *e.type != kInt64 && *e.type != kByteArray &&
                  *e.type != kFixedLenByteArray))
    throw std::runtime_error("a DECIMAL column '" + e.name +
                             "' that is not INT32, INT64 or a byte array");
  return true;
}

bool is_list_group(const SchemaElement& e) {
  return !e.type && (e.logical.kind == Logical::kList || (e.converted && *e.converted == kList));
}

// Leaves under schema[i] (itself one when primitive); advances nothing.
int count_leaves(const std::vector<SchemaElement>& s, size_t* i, int depth) {
  if (*i >= s.size() || depth > 64) throw std::runtime_error("schema tree is malformed");
  const SchemaElement& e = s[(*i)++];
  if (e.type) return 1;
  if (e.num_children < 0) throw std::runtime_error("schema tree is malformed");
  int n = 0;
  for (int c = 0; c < e.num_children; ++c) n += count_leaves(s, i, depth + 1);
  return n;
}

// The field at schema[top] as a nested column, or an unsupported one with the reason.
void add_nested(const std::vector<SchemaElement>& s, size_t top, size_t end, int first_leaf,
                int leaves, const std::string& name, FileSchema* out) {
  LeafColumn c;
  size_t i = top;
  try {
    auto root = std::make_shared<NestedNode>(map_nested(s, &i, first_leaf, &c.leaves));
    c.field = Field{name, root->type};
    c.nested = std::move(root);
  } catch (const std::invalid_argument& e) {
    out->unsupported.emplace_back(name, e.what());
    return;
  }
  // The field's subtree as its children counts say, and no more: its leaves' indices are
  // those of the row groups' column chunks.
  if (i != end || static_cast<int>(c.leaves.size()) != leaves || c.leaves.empty())
    throw std::runtime_error("schema tree is malformed (field '" + name + "')");
  c.leaf_index = first_leaf;
  c.element = c.leaves.front().element;
  out->columns.push_back(std::move(c));
}

}  // namespace

bool is_unsigned(const SchemaElement& e) {
  const int32_t conv = e.converted.value_or(-1);
  return (e.logical.kind == Logical::kInteger && !e.logical.is_signed) ||
         (conv >= kUint8 && conv <= kUint64);
}

int time_unit(const SchemaElement& e) {
  if (e.logical.kind == Logical::kTime) return e.logical.time_unit;
  if (e.converted == kTimeMillis) return 1;
  if (e.converted == kTimeMicros) return 2;
  return 0;
}

DataType leaf_type(const SchemaElement& e) {
  const int32_t conv = e.converted.value_or(-1);
  const Logical& l = e.logical;
  if (is_decimal(e)) return float64();
  switch (*e.type) {
    case kBoolean:
      return boolean();
    case kInt32:
      if (l.kind == Logical::kDate || conv == kDate) return date32();
      if (time_unit(e) != 0) return int64();  // microseconds since midnight
      // UINT_32 needs 64 bits; UINT_8 and UINT_16 fit in int32.
      if (is_unsigned(e) && (l.kind == Logical::kInteger ? l.bit_width == 32 : conv == kUint32))
        return int64();
      return int32();
    case kInt64:
      if (l.kind == Logical::kTimestamp || conv == kTimestampMillis || conv == kTimestampMicros)
        return timestamp_us();
      return int64();
    case kInt96:
      return timestamp_us();
    case kFloat:
      return float32();
    case kDouble:
      return float64();
    case kByteArray:
      if (l.kind == Logical::kString || conv == kUtf8 || conv == kJson || conv == 4 /*ENUM*/)
        return utf8();
      return binary();
    default:  // FIXED_LEN_BYTE_ARRAY: half floats widen to float32, the rest is bytes
      return l.kind == Logical::kFloat16 ? float32() : binary();
  }
}

FileSchema map_schema(const FileMetaData& meta) {
  const auto& s = meta.schema;
  if (s.empty() || s[0].type) throw std::runtime_error("the schema has no root group");
  FileSchema out;
  // Names first, over every top-level field (readable or not), so that a repeated name is
  // renamed the same way whichever columns a query reads.
  std::vector<std::string> names;
  for (size_t i = 1; names.size() < size_t(std::max(s[0].num_children, 0));) {
    if (i >= s.size()) throw std::runtime_error("schema tree is malformed");
    names.push_back(s[i].name);
    count_leaves(s, &i, 0);
  }
  names = rename_duplicate_columns(std::move(names));
  size_t i = 1;
  int leaf = 0;
  for (int f = 0; f < s[0].num_children; ++f) {
    if (i >= s.size()) throw std::runtime_error("schema tree is malformed");
    const size_t top = i;
    const SchemaElement& e = s[top];
    const std::string& name = names[size_t(f)];
    size_t walk = top;
    const int leaves = count_leaves(s, &walk, 0);
    LeafColumn c;
    c.leaf_index = leaf;
    c.field.name = name;
    const int own_def = e.repetition == kOptional ? 1 : 0;
    if (e.type && e.repetition != kRepeated) {
      c.element = e;
      c.max_def = own_def;
      c.field.type = leaf_type(e);
      out.columns.push_back(c);
    } else if (e.type) {  // a repeated primitive: a list of required items
      c.element = e;
      c.is_list = true;
      c.max_def = 1;
      c.max_rep = 1;
      c.list_def = 0;
      c.field.type = list(leaf_type(e));
      out.columns.push_back(c);
    } else if (is_list_group(e) && e.num_children == 1 && top + 1 < s.size() &&
               s[top + 1].repetition == kRepeated) {
      const SchemaElement& rep = s[top + 1];
      const SchemaElement* item = nullptr;
      int item_def = 0;
      if (rep.type) {
        item = &rep;  // legacy 2-level: the repeated field is the item
      } else if (rep.num_children == 1 && top + 2 < s.size() && s[top + 2].type &&
                 s[top + 2].repetition != kRepeated) {
        item = &s[top + 2];
        item_def = item->repetition == kOptional ? 1 : 0;
      }
      if (item) {
        c.element = *item;
        c.is_list = true;
        c.list_def = own_def;
        c.max_def = own_def + 1 + item_def;
        c.max_rep = 1;
        c.field.type = list(leaf_type(*item));
        out.columns.push_back(c);
      } else {
        add_nested(s, top, walk, leaf, leaves, name, &out);
      }
    } else {
      add_nested(s, top, walk, leaf, leaves, name, &out);
    }
    i = walk;
    leaf += leaves;
  }
  out.num_leaves = leaf;
  return out;
}

}  // namespace ember::parquet
