// map_get: a scan of each row's entries. Text keys compare as bytes without materialising
// values; other key types compare as Values.
#include "expr/nested_kernels.h"

#include <string_view>

namespace ember {

Column map_get(const Column& map, const Value& key, const DataType& value_type) {
  const Column keys = map.child().field(0);
  const Column values = map.child().field(1);
  const Value wanted = Column::repeat(key, keys.type(), 1).get(0);
  const bool text = keys.type().id() == TypeId::Utf8 || keys.type().id() == TypeId::Binary;
  std::string_view wanted_text;
  if (const auto* s = std::get_if<std::string>(&wanted)) wanted_text = *s;
  if (const auto* b = std::get_if<std::vector<uint8_t>>(&wanted))
    wanted_text = std::string_view(reinterpret_cast<const char*>(b->data()), b->size());
  ColumnBuilder out(value_type, map.size());
  for (int64_t i = 0; i < map.size(); ++i) {
    int64_t found = -1;
    if (map.is_valid(i)) {
      const auto [first, last] = map.list_range(i);
      for (int64_t j = first; j < last && found < 0; ++j) {
        if (keys.is_null(j)) continue;
        if (text ? keys.value<std::string_view>(j) == wanted_text : keys.get(j) == wanted)
          found = j;
      }
    }
    if (found < 0)
      out.append_null();
    else
      out.append_from(values, found);
  }
  return out.finish();
}

}  // namespace ember
