// The Dremel walk: each row is followed down the leaf's path; a null node, an empty list or
// map, and each leaf value end the walk with one level entry. The first entry of a row has
// repetition level 0; the first of a list's items inherits the list's own level, the others
// get the list's depth.
#include "io/parquet/parquet_levels.h"

#include <algorithm>
#include <utility>

#include "ember/error.h"

namespace ember::parquet {

namespace {

class LevelWalk {
 public:
  /// `kinds` holds the type of the node at each depth of the path, the leaf's last.
  LevelWalk(const std::vector<int>& steps, std::vector<TypeId> kinds, const std::string& name,
            LeafLevels* out)
      : steps_(steps), kinds_(std::move(kinds)), name_(name), out_(out) {
    for (const TypeId k : kinds_)
      repeated_ = repeated_ || k == TypeId::List || k == TypeId::FixedSizeList || k == TypeId::Map;
  }

  /// Whether a list or map lies on the path (then repetition levels are kept).
  bool repeated() const { return repeated_; }

  /// Row `i` of node `c` (at `depth` steps below the top) whose ancestors define `def`
  /// levels; its first entry gets repetition level `rep`, and `rep_depth` lists or maps
  /// enclose it. A required node adds no definition level and must not be null.
  void visit(const Column& c, size_t depth, int64_t i, uint32_t def, uint32_t rep,
             uint32_t rep_depth, bool required) {
    if (c.is_null(i)) {
      if (required) refuse("a null map key");
      emit(rep, def);
      return;
    }
    const uint32_t d = required ? def : def + 1;
    switch (kinds_[depth]) {
      case TypeId::Struct:
        visit(c.children()[size_t(steps_[depth])], depth + 1, c.offset() + i, d, rep, rep_depth,
              false);
        return;
      case TypeId::List:
      case TypeId::FixedSizeList:
      case TypeId::Map:
        visit_items(c, depth, i, d, rep, rep_depth);
        return;
      default:
        emit(rep, d);
        out_->value_rows.push_back(i);
    }
  }

 private:
  void visit_items(const Column& c, size_t depth, int64_t i, uint32_t d, uint32_t rep,
                   uint32_t rep_depth) {
    const auto [b, e] = c.list_range(i);
    if (b == e) {
      emit(rep, d);
      return;
    }
    const Column& items = c.child();
    const bool is_map = kinds_[depth] == TypeId::Map;
    const int step = steps_[depth];
    for (int64_t j = b; j < e; ++j) {
      const uint32_t r = j == b ? rep : rep_depth + 1;
      if (!is_map) {
        visit(items, depth + 1, j, d + 1, r, rep_depth + 1, false);
        continue;
      }
      if (items.is_null(j)) refuse("a null map entry");
      visit(items.children()[size_t(step)], depth + 1, items.offset() + j, d + 1, r, rep_depth + 1,
            step == 0);
    }
  }

  void emit(uint32_t rep, uint32_t def) {
    out_->defs.push_back(def);
    if (repeated_) out_->reps.push_back(rep);
  }

  [[noreturn]] void refuse(const std::string& what) const {
    throw InvalidArgument("Parquet cannot hold " + what + " (column '" + name_ + "')");
  }

  const std::vector<int>& steps_;
  const std::vector<TypeId> kinds_;  // looked up once: a Column's type() is a copy
  const std::string& name_;
  bool repeated_ = false;
  LeafLevels* out_;
};

// The leaf's column, reached by the steps the walk takes, and the type of each node on the way
// (in `*kinds`, the leaf's last).
const Column& leaf_column(const Column& c, const std::vector<int>& steps,
                          std::vector<TypeId>* kinds) {
  const Column* node = &c;
  for (const int step : steps) {
    const TypeId id = node->type().id();
    kinds->push_back(id);
    if (id == TypeId::Struct)
      node = &node->children()[size_t(step)];
    else if (id == TypeId::Map)
      node = &node->child().children()[size_t(step)];
    else
      node = &node->child();
  }
  kinds->push_back(node->type().id());
  return *node;
}

}  // namespace

LeafLevels leaf_levels(const Column& c, const std::vector<int>& steps, const std::string& name) {
  LeafLevels out;
  std::vector<TypeId> kinds;
  out.values = leaf_column(c, steps, &kinds);
  LevelWalk walk(steps, std::move(kinds), name, &out);
  // A slot per row, or per innermost item under a list (the leaf column's own length).
  const size_t slots = size_t(walk.repeated() ? std::max(c.size(), out.values.size()) : c.size());
  out.defs.reserve(slots);
  if (walk.repeated()) out.reps.reserve(slots);
  out.value_rows.reserve(slots);
  for (int64_t i = 0; i < c.size(); ++i) walk.visit(c, 0, i, 0, 0, 0, false);
  return out;
}

}  // namespace ember::parquet
