// Python scalars to ember Values and back; Python operands to expressions.
#include "python_values.h"

#include <pybind11/stl.h>

#include <string>
#include <utility>

namespace ember::python {

namespace {

bool is_datetime(py::handle obj) {
  static py::object datetime_type = py::module_::import("datetime").attr("datetime");
  return py::isinstance(obj, datetime_type);
}

Value datetime_value(py::handle obj) {
  // A naive datetime is taken as UTC, as ember's timestamps are.
  py::module_ dt = py::module_::import("datetime");
  py::object utc = dt.attr("timezone").attr("utc");
  py::object aware = py::reinterpret_borrow<py::object>(obj);
  if (obj.attr("tzinfo").is_none()) aware = obj.attr("replace")(py::arg("tzinfo") = utc);
  py::object epoch = dt.attr("datetime")(1970, 1, 1, py::arg("tzinfo") = utc);
  py::object delta = aware - epoch;
  const int64_t days = delta.attr("days").cast<int64_t>();
  const int64_t seconds = delta.attr("seconds").cast<int64_t>();
  const int64_t micros = delta.attr("microseconds").cast<int64_t>();
  return Value{Timestamp{(days * 86400 + seconds) * 1000000 + micros}};
}

bool is_date(py::handle obj) {  // a datetime is a date too: checked after is_datetime
  static py::object date_type = py::module_::import("datetime").attr("date");
  return py::isinstance(obj, date_type);
}

Value date_value(py::handle obj) {
  py::object epoch = py::module_::import("datetime").attr("date")(1970, 1, 1);
  const int64_t days =
      (py::reinterpret_borrow<py::object>(obj) - epoch).attr("days").cast<int64_t>();
  return Value{Date{static_cast<int32_t>(days)}};
}

py::object date_object(const Date& d) {
  py::module_ dt = py::module_::import("datetime");
  return dt.attr("date")(1970, 1, 1) + dt.attr("timedelta")(py::arg("days") = d.days);
}

py::object timestamp_object(const Timestamp& t) {
  py::module_ dt = py::module_::import("datetime");
  py::object epoch = dt.attr("datetime")(1970, 1, 1);
  return epoch + dt.attr("timedelta")(py::arg("microseconds") = t.micros);
}

}  // namespace

Value to_value(py::handle obj) {
  if (obj.is_none()) return Value{};
  if (py::isinstance<py::bool_>(obj)) return Value{obj.cast<bool>()};
  if (py::isinstance<py::int_>(obj)) return Value{obj.cast<int64_t>()};
  if (py::isinstance<py::float_>(obj)) return Value{obj.cast<double>()};
  if (py::isinstance<py::str>(obj)) return Value{obj.cast<std::string>()};
  if (py::isinstance<py::bytes>(obj)) {
    const std::string b = obj.cast<std::string>();
    return Value{std::vector<uint8_t>(b.begin(), b.end())};
  }
  if (is_datetime(obj)) return datetime_value(obj);
  if (is_date(obj)) return date_value(obj);
  if (py::hasattr(obj, "dtype") && py::hasattr(obj, "item") && py::len(obj.attr("shape")) == 0)
    return to_value(obj.attr("item")());  // a NumPy scalar
  if (py::hasattr(obj, "tolist") && py::hasattr(obj, "shape"))
    return to_value(obj.attr("tolist")());  // a NumPy array: a list
  if (py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj)) {
    List list;
    for (py::handle item : obj) list.items.push_back(to_value(item));
    return Value{std::move(list)};
  }
  if (py::isinstance<py::dict>(obj)) {  // a struct, its fields in the dict's order
    Struct s;
    for (const auto& item : py::reinterpret_borrow<py::dict>(obj)) {
      if (!py::isinstance<py::str>(item.first))
        throw InvalidArgument("a dict used as a struct value needs str keys; got " +
                              py::repr(item.first).cast<std::string>());
      s.fields.emplace_back(item.first.cast<std::string>(), to_value(item.second));
    }
    return Value{std::move(s)};
  }
  throw InvalidArgument(
      "cannot use a Python " + py::str(obj.get_type().attr("__name__")).cast<std::string>() +
      " as an ember value (None, bool, int, float, str, bytes, datetime, date, or a list or "
      "dict of them)");
}

py::object from_value(const Value& v) {
  return std::visit(
      [](const auto& x) -> py::object {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return py::none();
        } else if constexpr (std::is_same_v<T, std::string>) {
          return py::str(x);
        } else if constexpr (std::is_same_v<T, std::vector<uint8_t>>) {
          return py::bytes(reinterpret_cast<const char*>(x.data()), x.size());
        } else if constexpr (std::is_same_v<T, Timestamp>) {
          return timestamp_object(x);
        } else if constexpr (std::is_same_v<T, Date>) {
          return date_object(x);
        } else if constexpr (std::is_same_v<T, List>) {
          py::list out;
          for (const Value& item : x.items) out.append(from_value(item));
          return out;
        } else if constexpr (std::is_same_v<T, Struct>) {
          py::dict out;
          for (const auto& [name, value] : x.fields) out[py::str(name)] = from_value(value);
          return out;
        } else {
          return py::cast(x);
        }
      },
      v);
}

Expr to_expr(py::handle obj, bool text_is_column) {
  if (py::isinstance<Expr>(obj)) return obj.cast<Expr>();
  if (text_is_column && py::isinstance<py::str>(obj)) return col(obj.cast<std::string>());
  return lit(to_value(obj));
}

std::vector<Expr> to_exprs(py::handle items, bool text_is_column) {
  std::vector<Expr> out;
  for (py::handle item : items) out.push_back(to_expr(item, text_is_column));
  return out;
}

}  // namespace ember::python
