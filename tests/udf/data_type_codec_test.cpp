// DataType as message bytes: nested types (structs in maps in lists, with their field names)
// come back equal, and a message cut short is an error rather than a read past its end.
#include "udf/data_type_codec.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ember/error.h"

namespace ember {
namespace {

std::vector<DataType> nested_types() {
  const DataType point = struct_({{"x", float64()}, {"y", float64()}});
  return {point,
          map(utf8(), int64()),
          list(list(list(int32()))),
          map(utf8(), struct_({{"p", point}, {"tags", list(utf8())}})),
          struct_({{"m", map(int64(), list(point))}, {"e", fixed_size_list(float32(), 4)}}),
          list(struct_({{"when", timestamp_us()}, {"day", date32()}, {"raw", binary()}}))};
}

TEST(DataTypeCodec, NestedTypesComeBackEqualWithTheirFieldNames) {
  for (const DataType& type : nested_types()) {
    process::MessageWriter out;
    put_data_type(out, type);
    put_data_type(out, int64());  // the reader stops where the first type ends
    auto in = process::MessageReader::unframed(out.bytes());
    const DataType back = get_data_type(in);
    EXPECT_EQ(back, type) << type.to_string() << " came back as " << back.to_string();
    EXPECT_EQ(back.to_string(), type.to_string());
    EXPECT_EQ(get_data_type(in), int64());
    EXPECT_EQ(in.remaining(), 0u);
  }
}

TEST(DataTypeCodec, ATruncatedTypeIsAnError) {
  process::MessageWriter out;
  put_data_type(out, nested_types()[3]);
  const std::string bytes = out.bytes();
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    auto in = process::MessageReader::unframed(std::string_view(bytes).substr(0, cut));
    EXPECT_THROW(get_data_type(in), Error) << "cut at " << cut;
  }
}

}  // namespace
}  // namespace ember
