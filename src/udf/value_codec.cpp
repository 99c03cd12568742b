// Values as tagged payloads: the variant's index, then the alternative's bytes.
#include "udf/value_codec.h"

#include <variant>

#include "ember/error.h"
#include "udf/data_type_codec.h"

namespace ember {

void put_value(process::MessageWriter& out, const Value& v) {
  out.put(static_cast<uint8_t>(v.index()));
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
        } else if constexpr (std::is_same_v<T, std::string>) {
          out.put_string(x);
        } else if constexpr (std::is_same_v<T, std::vector<uint8_t>>) {
          out.put_string(std::string_view(reinterpret_cast<const char*>(x.data()), x.size()));
        } else if constexpr (std::is_same_v<T, List>) {
          put_data_type(out, x.element);
          out.put(static_cast<uint64_t>(x.items.size()));
          for (const Value& item : x.items) put_value(out, item);
        } else if constexpr (std::is_same_v<T, Struct>) {
          out.put(static_cast<uint64_t>(x.fields.size()));
          for (const auto& [name, value] : x.fields) {
            out.put_string(name);
            put_value(out, value);
          }
        } else {
          out.put(x);
        }
      },
      v);
}

Value get_value(process::MessageReader& in) {
  switch (in.get<uint8_t>()) {
    case 0:
      return Value{};
    case 1:
      return Value{in.get<bool>()};
    case 2:
      return Value{in.get<int64_t>()};
    case 3:
      return Value{in.get<double>()};
    case 4:
      return Value{std::string(in.get_string())};
    case 5:
      return Value{in.get<float>()};
    case 6: {
      const std::string_view b = in.get_string();
      return Value{std::vector<uint8_t>(b.begin(), b.end())};
    }
    case 7:
      return Value{in.get<Timestamp>()};
    case 8: {
      List list;
      list.element = get_data_type(in);
      const auto n = in.get<uint64_t>();
      if (n > in.remaining()) throw Error("a message holds a list longer than itself");
      list.items.reserve(n);
      for (uint64_t i = 0; i < n; ++i) list.items.push_back(get_value(in));
      return Value{std::move(list)};
    }
    case 9:
      return Value{in.get<Date>()};
    case 10: {
      Struct s;
      const auto n = in.get<uint64_t>();
      if (n > in.remaining()) throw Error("a message holds a struct longer than itself");
      for (uint64_t i = 0; i < n; ++i) {
        std::string name(in.get_string());
        s.fields.emplace_back(std::move(name), get_value(in));
      }
      return Value{std::move(s)};
    }
    default:
      throw Error("a message holds a value of an unknown type");
  }
}

}  // namespace ember
