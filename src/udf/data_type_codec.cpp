// DataType as bytes: id, list size, then the element type of a list, the key and value types
// of a map, or the named fields of a struct.
#include "udf/data_type_codec.h"

#include <string>
#include <vector>

#include "ember/error.h"

namespace ember {

void put_data_type(process::MessageWriter& out, const DataType& type) {
  out.put(static_cast<uint8_t>(type.id()));
  out.put(type.list_size());
  if (type.id() == TypeId::Map) {
    put_data_type(out, type.element().fields()[0].type);
    put_data_type(out, type.element().fields()[1].type);
  } else if (type.is_list()) {
    put_data_type(out, type.element());
  }
  if (type.id() == TypeId::Struct) {
    out.put(static_cast<uint32_t>(type.fields().size()));
    for (const Field& f : type.fields()) {
      out.put_string(f.name);
      put_data_type(out, f.type);
    }
  }
}

DataType get_data_type(process::MessageReader& in) {
  const auto id = static_cast<TypeId>(in.get<uint8_t>());
  const auto list_size = in.get<int32_t>();
  if (id == TypeId::List) return DataType::list_of(get_data_type(in));
  if (id == TypeId::FixedSizeList)
    return DataType::fixed_size_list_of(get_data_type(in), list_size);
  if (id == TypeId::Map) {
    DataType key = get_data_type(in);
    return DataType::map_of(std::move(key), get_data_type(in));
  }
  if (id == TypeId::Struct) {
    const auto n = in.get<uint32_t>();
    if (n > in.remaining()) throw Error("a message holds a struct type longer than itself");
    std::vector<Field> fields;
    for (uint32_t i = 0; i < n; ++i) {
      std::string name(in.get_string());
      fields.push_back(Field{std::move(name), get_data_type(in)});
    }
    return DataType::struct_of(std::move(fields));
  }
  if (id > TypeId::Map) throw Error("a message holds a type of an unknown kind");
  return DataType(id);
}

}  // namespace ember
