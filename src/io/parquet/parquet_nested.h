// Nested Parquet columns (structs, maps, lists of lists or of structs): the schema subtree of a
// top-level field mapped to a tree of nodes with the definition and repetition levels at which
// each exists, and the column assembled from its leaves' levels and values (the Dremel rules).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ember/column.h"
#include "io/parquet/parquet_metadata.h"

namespace ember::parquet {

struct LeafColumn;
struct ChunkData;

/// One node of a nested column. A slot of the node exists at a level entry whose repetition
/// level is at most `rep` and whose definition level is at least `slot_def`; the slot holds a
/// value (is not null) when the definition level is at least `present_def`.
struct NestedNode {
  enum class Kind { Leaf, Struct, List } kind = Kind::Leaf;
  DataType type;                     ///< the node's ember type (a map is a List node of a map type)
  int rep = 0;                       ///< repeated ancestors (the list items' level is rep + 1)
  int slot_def = 0;                  ///< definition level at which the node has a slot
  int present_def = 0;               ///< definition level at which the slot is not null
  std::vector<NestedNode> children;  ///< struct: its fields; list: the item
  int leaf = -1;                     ///< Leaf: position in the column's leaves
  int first_leaf = 0;                ///< a leaf under the node, whose levels give the node's slots
};

/// Maps the field at schema[*i] (a top-level field named `name`) to a nested node tree and
/// appends its primitive leaves to `leaves` (leaf_index counted from `first_leaf_index`);
/// advances *i past the field. Throws std::invalid_argument with a reason for a layout ember
/// does not read (a group without fields, a map without key/value fields).
NestedNode map_nested(const std::vector<SchemaElement>& schema, size_t* i, int first_leaf_index,
                      std::vector<LeafColumn>* leaves);

/// The column of `rows` rows assembled from the leaves' decoded chunks (`chunks[k]` for leaf k).
/// Throws std::runtime_error when the levels of the leaves disagree or break the rules.
Column assemble_nested(const NestedNode& root, const std::vector<LeafColumn>& leaves,
                       const std::vector<ChunkData>& chunks, int64_t rows);

}  // namespace ember::parquet
