// Schema: lookup by name and a readable rendering.
#include <string>

#include "ember/types.h"

namespace ember {

int Schema::index_of(std::string_view name) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::string Schema::to_string() const {
  std::string out;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (i > 0) out += ", ";
    out += fields_[i].name;
    out += ": ";
    out += fields_[i].type.to_string();
  }
  return out;
}

}  // namespace ember
