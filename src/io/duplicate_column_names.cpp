// Renaming repeated column names: one pass, suffixes chosen against every name of the file.
#include "io/duplicate_column_names.h"

#include <unordered_map>
#include <unordered_set>

namespace ember {

std::vector<std::string> rename_duplicate_columns(std::vector<std::string> names) {
  // Every name of the file is taken before any rename, so that a later column that really is
  // called "x_1" keeps its name and the repeat of "x" skips to "x_2".
  std::unordered_set<std::string> taken(names.begin(), names.end());
  if (taken.size() == names.size()) return names;
  std::unordered_set<std::string> seen;
  std::unordered_map<std::string, int> next_suffix;
  for (std::string& name : names) {
    if (seen.insert(name).second) continue;
    int& k = next_suffix[name];
    std::string renamed;
    do renamed = name + "_" + std::to_string(++k);
    while (taken.count(renamed));
    taken.insert(renamed);
    seen.insert(renamed);
    name = std::move(renamed);
  }
  return names;
}

}  // namespace ember
