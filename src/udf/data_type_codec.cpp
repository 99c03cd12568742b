// DataType as bytes: id, list size, then the element type of a list.
#include "udf/data_type_codec.h"

namespace ember {

void put_data_type(process::MessageWriter& out, const DataType& type) {
  out.put(static_cast<uint8_t>(type.id()));
  out.put(type.list_size());
  if (type.is_list()) put_data_type(out, type.element());
}

DataType get_data_type(process::MessageReader& in) {
  const auto id = static_cast<TypeId>(in.get<uint8_t>());
  const auto list_size = in.get<int32_t>();
  if (id == TypeId::List) return DataType::list_of(get_data_type(in));
  if (id == TypeId::FixedSizeList)
    return DataType::fixed_size_list_of(get_data_type(in), list_size);
  return DataType(id);
}

}  // namespace ember
