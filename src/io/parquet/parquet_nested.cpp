// Nested columns. Mapping follows the Parquet format's LogicalTypes.md: a LIST group holds one
// repeated field, which is the item itself in the legacy two-level layouts (a primitive, a group
// of several fields, or one named "array" or "<list>_tuple") and otherwise wraps the item; a MAP
// group holds a repeated key_value group of a key and a value; a repeated field outside such a
// group is a list of required values; any other group is a struct. Every optional level adds one
// definition level, every repeated level one definition and one repetition level.
#include "io/parquet/parquet_nested.h"

#include <limits>
#include <stdexcept>

#include "core/bitmap.h"
#include "core/buffer_access.h"
#include "io/parquet/parquet_chunk_reader.h"
#include "io/parquet/parquet_column_builder.h"
#include "io/parquet/parquet_schema.h"

namespace ember::parquet {

namespace {

bool annotated_list(const SchemaElement& e) {
  return e.logical.kind == Logical::kList || e.converted == kList;
}

bool annotated_map(const SchemaElement& e) {
  return e.logical.kind == Logical::kMap || e.converted == kMap || e.converted == kMapKeyValue;
}

class Mapper {
 public:
  Mapper(const std::vector<SchemaElement>& s, size_t* i, int first_leaf_index,
         std::vector<LeafColumn>* leaves)
      : s_(s), i_(*i), first_leaf_index_(first_leaf_index), leaves_(*leaves) {}

  /// The field at the cursor, at `rep` repeated ancestors, its slot existing at `slot_def` and
  /// its parent present at `base_def` (a struct's fields have slots where it is null).
  NestedNode field(int rep, int slot_def, int base_def, const std::string& path) {
    const SchemaElement& e = take();
    const std::string name = path.empty() ? e.name : path + "." + e.name;
    if (e.repetition != kRepeated)
      return value(e, rep, slot_def, base_def, e.repetition == kOptional, name);
    // A repeated field outside a LIST or MAP group: a list of required values, null only
    // where its parent is.
    NestedNode list = node(NestedNode::Kind::List, rep, slot_def, base_def);
    list.children.push_back(value(e, rep + 1, base_def + 1, base_def + 1, false, name));
    list.type = ember::list(list.children[0].type);
    return list;
  }

 private:
  const SchemaElement& take() {
    if (i_ >= s_.size() || ++depth_guard_ > 100000)
      throw std::runtime_error("schema tree is malformed");
    return s_[i_++];
  }

  NestedNode node(NestedNode::Kind kind, int rep, int slot_def, int present_def) const {
    NestedNode n;
    n.kind = kind;
    n.rep = rep;
    n.slot_def = slot_def;
    n.present_def = present_def;
    n.first_leaf = static_cast<int>(leaves_.size());
    return n;
  }

  // The node of `e` (already taken) at this level, not repeated here.
  NestedNode value(const SchemaElement& e, int rep, int slot_def, int base_def, bool optional,
                   const std::string& name) {
    const int present = base_def + (optional ? 1 : 0);
    if (rep > 100 || present > 100) throw std::invalid_argument("nested more than 100 levels deep");
    if (e.type) {
      NestedNode leaf = node(NestedNode::Kind::Leaf, rep, slot_def, present);
      LeafColumn c;
      c.field = Field{name, leaf_type(e)};
      c.leaf_index = first_leaf_index_ + static_cast<int>(leaves_.size());
      c.element = e;
      c.max_def = present;
      c.max_rep = rep;
      leaf.type = c.field.type;
      leaf.leaf = static_cast<int>(leaves_.size());
      leaves_.push_back(std::move(c));
      return leaf;
    }
    if (e.num_children <= 0) throw std::invalid_argument("a group without fields");
    if (annotated_list(e)) return list_group(e, rep, slot_def, present, name);
    if (annotated_map(e)) return map_group(e, rep, slot_def, present, name);
    NestedNode st = node(NestedNode::Kind::Struct, rep, slot_def, present);
    std::vector<Field> fields;
    for (int c = 0; c < e.num_children; ++c) {
      if (i_ >= s_.size()) throw std::runtime_error("schema tree is malformed");
      const std::string child_name = s_[i_].name;
      st.children.push_back(field(rep, slot_def, present, name));
      for (const Field& f : fields)
        if (f.name == child_name)
          throw std::invalid_argument("a struct with two fields named '" + child_name + "'");
      fields.push_back(Field{child_name, st.children.back().type});
    }
    st.type = struct_(std::move(fields));
    return st;
  }

  NestedNode list_group(const SchemaElement& e, int rep, int slot_def, int present,
                        const std::string& name) {
    if (e.num_children != 1)
      throw std::invalid_argument("a LIST group of " + std::to_string(e.num_children) + " fields");
    NestedNode list = node(NestedNode::Kind::List, rep, slot_def, present);
    const SchemaElement& r = take();
    if (r.repetition != kRepeated)
      throw std::invalid_argument("a LIST group whose field is not repeated");
    if (!r.type && r.num_children <= 0)
      throw std::invalid_argument("a LIST group whose repeated field is a group without fields");
    const int item_def = present + 1;
    if (r.type || r.num_children > 1 || r.name == "array" || r.name == e.name + "_tuple")
      list.children.push_back(value(r, rep + 1, item_def, item_def, false, name));  // two-level
    else
      list.children.push_back(field(rep + 1, item_def, item_def, name));
    list.type = ember::list(list.children[0].type);
    return list;
  }

  NestedNode map_group(const SchemaElement& e, int rep, int slot_def, int present,
                       const std::string& name) {
    if (e.num_children != 1)
      throw std::invalid_argument("a MAP group of " + std::to_string(e.num_children) + " fields");
    NestedNode map = node(NestedNode::Kind::List, rep, slot_def, present);
    const SchemaElement& kv = take();
    if (kv.repetition != kRepeated || kv.type || kv.num_children != 2)
      throw std::invalid_argument("a MAP group without a repeated key/value group");
    const int item_def = present + 1;
    NestedNode entries = node(NestedNode::Kind::Struct, rep + 1, item_def, item_def);
    entries.children.push_back(field(rep + 1, item_def, item_def, name + ".key"));
    entries.children.push_back(field(rep + 1, item_def, item_def, name + ".value"));
    const DataType& key = entries.children[0].type;
    const DataType& value = entries.children[1].type;
    map.type = ember::map(key, value);
    entries.type = map.type.element();
    map.children.push_back(std::move(entries));
    return map;
  }

  const std::vector<SchemaElement>& s_;
  size_t& i_;
  int first_leaf_index_;
  std::vector<LeafColumn>& leaves_;
  int depth_guard_ = 0;
};

std::shared_ptr<Buffer> validity_of(const std::vector<uint8_t>& valid) {
  const int64_t n = static_cast<int64_t>(valid.size());
  std::shared_ptr<Buffer> bits;
  for (int64_t k = 0; k < n; ++k) {
    if (valid[size_t(k)]) continue;
    if (!bits) {
      bits = Buffer::allocate(bitmap::bytes_for(n));
      bitmap::set_range(detail::BufferAccess::mutable_data(*bits), 0, n);
    }
    clear_bit(detail::BufferAccess::mutable_data(*bits), k);
  }
  return bits;
}

class Assembler {
 public:
  Assembler(const std::vector<LeafColumn>& leaves, const std::vector<ChunkData>& chunks)
      : leaves_(leaves), chunks_(chunks) {}

  Column build(const NestedNode& n) {
    switch (n.kind) {
      case NestedNode::Kind::Leaf:
        return leaf(n);
      case NestedNode::Kind::Struct:
        return structure(n);
      case NestedNode::Kind::List:
        return list(n);
    }
    throw std::runtime_error("unknown nested node");
  }

 private:
  // The level entries of the leaf under `n` that its slots come from.
  struct Levels {
    const int16_t* defs = nullptr;
    const int16_t* reps = nullptr;
    int64_t n = 0;
    int def(int64_t i) const { return defs ? defs[i] : 0; }
    int rep(int64_t i) const { return reps ? reps[i] : 0; }
  };
  Levels levels(int leaf) const {
    const ChunkData& d = chunks_[size_t(leaf)];
    const LeafColumn& c = leaves_[size_t(leaf)];
    Levels l;
    l.n = d.num_values;
    if (c.max_def > 0) {
      if (static_cast<int64_t>(d.defs.size()) != l.n)
        throw std::runtime_error("levels are missing");
      l.defs = d.defs.data();
    }
    if (c.max_rep > 0) {
      if (static_cast<int64_t>(d.reps.size()) != l.n)
        throw std::runtime_error("levels are missing");
      l.reps = d.reps.data();
    }
    return l;
  }

  // Whether each slot of `n` holds a value.
  std::vector<uint8_t> slots(const NestedNode& n) const {
    const Levels l = levels(n.first_leaf);
    std::vector<uint8_t> valid;
    for (int64_t i = 0; i < l.n; ++i)
      if (l.rep(i) <= n.rep && l.def(i) >= n.slot_def) valid.push_back(l.def(i) >= n.present_def);
    return valid;
  }

  Column leaf(const NestedNode& n) {
    const Levels l = levels(n.leaf);
    return place_values(
        leaf_values(chunks_[size_t(n.leaf)], leaves_[size_t(n.leaf)]), l.n,
        [&](int64_t i) { return l.rep(i) <= n.rep && l.def(i) >= n.slot_def; },
        [&](int64_t i) { return l.def(i) >= n.present_def; });
  }

  Column structure(const NestedNode& n) {
    const std::vector<uint8_t> valid = slots(n);
    const int64_t rows = static_cast<int64_t>(valid.size());
    std::vector<Column> children;
    for (const NestedNode& c : n.children) {
      children.push_back(build(c));
      if (children.back().size() != rows)
        throw std::runtime_error("the fields of a struct hold different numbers of values");
    }
    return Column::nested(n.type, rows, -1, validity_of(valid), std::move(children));
  }

  Column list(const NestedNode& n) {
    const Levels l = levels(n.first_leaf);
    std::vector<uint8_t> valid;
    std::vector<int32_t> offsets;
    int64_t items = 0;
    for (int64_t i = 0; i < l.n; ++i) {
      const int rep = l.rep(i), def = l.def(i);
      if (rep <= n.rep && def >= n.slot_def) {
        offsets.push_back(static_cast<int32_t>(items));
        valid.push_back(def >= n.present_def);
      } else if (rep > n.rep && offsets.empty()) {
        throw std::runtime_error("a list continues before it starts");
      }
      if (rep <= n.rep + 1 && def > n.present_def && ++items > std::numeric_limits<int32_t>::max())
        throw std::runtime_error("a list column holds more than 2^31-1 items");
    }
    offsets.push_back(static_cast<int32_t>(items));
    Column item = build(n.children[0]);
    if (item.size() != items) throw std::runtime_error("list items and their values disagree");
    const int64_t rows = static_cast<int64_t>(valid.size());
    auto off = detail::BufferAccess::allocate_uninitialized(int64_t(offsets.size()) * 4);
    std::memcpy(detail::BufferAccess::mutable_data(*off), offsets.data(), offsets.size() * 4);
    return Column::nested(n.type, rows, -1, validity_of(valid), std::move(off), std::move(item));
  }

  const std::vector<LeafColumn>& leaves_;
  const std::vector<ChunkData>& chunks_;
};

}  // namespace

NestedNode map_nested(const std::vector<SchemaElement>& schema, size_t* i, int first_leaf_index,
                      std::vector<LeafColumn>* leaves) {
  return Mapper(schema, i, first_leaf_index, leaves).field(0, 0, 0, "");
}

Column assemble_nested(const NestedNode& root, const std::vector<LeafColumn>& leaves,
                       const std::vector<ChunkData>& chunks, int64_t rows) {
  Column c = Assembler(leaves, chunks).build(root);
  if (c.size() != rows)
    throw std::runtime_error("column chunks hold " + std::to_string(c.size()) + " values for " +
                             std::to_string(rows) + " rows");
  return c;
}

}  // namespace ember::parquet
