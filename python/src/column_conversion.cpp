// Columns to Python lists and NumPy arrays and back. Fixed-width data crosses as whole
// buffers; everything else row by row.
#include "column_conversion.h"

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "nested_values.h"
#include "padded_numpy.h"
#include "python_values.h"
#include "series.h"

namespace ember::python {

namespace {

/// The NumPy dtype name of a fixed-width ember type, or nullptr.
const char* numpy_dtype_name(const DataType& t) {
  switch (t.id()) {
    case TypeId::Int64:
      return "int64";
    case TypeId::Float64:
      return "float64";
    case TypeId::Int32:
      return "int32";
    case TypeId::Float32:
      return "float32";
    case TypeId::Timestamp:
      return "datetime64[us]";
    default:
      return nullptr;
  }
}

/// An owning handle on a column for NumPy's `base`: the array keeps the buffers alive.
py::capsule keep_alive(const Column& c) {
  return py::capsule(new Column(c), [](void* p) { delete static_cast<Column*>(p); });
}

py::array read_only(py::array a) {
  a.attr("flags").attr("writeable") = false;
  return a;
}

py::array view_of(const Column& c) {
  if (c.type().id() == TypeId::FixedSizeList) {
    const Column& child = c.child();
    const int64_t n = c.type().list_size();
    const int width = child.type().byte_width();
    const uint8_t* first =
        child.values_buffer()->data() + (child.offset() + c.offset() * n) * width;
    py::dtype dt(numpy_dtype_name(child.type()));
    return read_only(py::array(dt, {c.size(), n}, {n * width, static_cast<int64_t>(width)}, first,
                               keep_alive(c)));
  }
  const int width = c.type().byte_width();
  const uint8_t* first = c.values_buffer()->data() + c.offset() * width;
  return read_only(py::array(py::dtype(numpy_dtype_name(c.type())), {c.size()}, {int64_t{width}},
                             first, keep_alive(c)));
}

/// The values of a C-contiguous NumPy array of a fixed-width type (`count` of them, every
/// element whatever its shape) as a column of `type`: the array's own memory when NumPy
/// allocated it in ember's layout (a thread actor's result), else a copy.
Column fixed_width_from_numpy(const py::array& a, const DataType& type, int64_t count) {
  std::shared_ptr<Buffer> values = share_padded(a);
  if (!values) values = Buffer::copy_of(a.data(), count * type.byte_width());
  return Column::from_buffers(type, count, 0, nullptr, std::move(values));
}

Column bool_from_numpy(const py::array& a) {
  const int64_t rows = a.shape(0);
  std::vector<bool> bits(static_cast<size_t>(rows));
  const auto* v = static_cast<const uint8_t*>(a.data());
  for (int64_t i = 0; i < rows; ++i) bits[static_cast<size_t>(i)] = v[i] != 0;
  return Column::from(std::move(bits));
}

/// The ember type NumPy's dtype of `a` maps to, or the Null type when none does.
DataType type_of_array(const py::array& a) {
  const std::string name = py::str(a.dtype().attr("name"));
  DataType scalar;
  if (name == "int64") scalar = int64();
  if (name == "float64") scalar = float64();
  if (name == "int32") scalar = int32();
  if (name == "float32") scalar = float32();
  if (name == "bool") scalar = boolean();
  if (name == "datetime64[us]") scalar = timestamp_us();
  if (a.ndim() == 2 && scalar.byte_width() > 0)
    return fixed_size_list(scalar, static_cast<int32_t>(a.shape(1)));
  return a.ndim() == 1 ? scalar : DataType();
}

/// `obj` converted by NumPy to a C-contiguous array of dtype `dtype`.
py::array as_numpy(py::handle obj, const char* dtype) {
  py::module_ np = py::module_::import("numpy");
  return np.attr("ascontiguousarray")(obj, py::arg("dtype") = dtype).cast<py::array>();
}

/// A NumPy array (whose dtype is `type`'s, or converts to it) as a column, whole buffers at a
/// time. nullopt when the array cannot be taken that way (an object array, say).
std::optional<Column> column_from_array(py::handle obj, const DataType& type) {
  const DataType& scalar = type.id() == TypeId::FixedSizeList ? type.element() : type;
  const char* dtype = scalar.id() == TypeId::Boolean ? "bool" : numpy_dtype_name(scalar);
  if (dtype == nullptr) return std::nullopt;
  py::array a = obj.cast<py::array>();
  if (a.dtype().attr("kind").cast<std::string>() == "O") return std::nullopt;
  a = as_numpy(a, dtype);
  if (type.id() == TypeId::FixedSizeList) {
    if (a.ndim() != 2 || a.shape(1) != type.list_size())
      throw InvalidArgument("a " + type.to_string() + " column needs a 2-D array of " +
                            std::to_string(type.list_size()) + " columns; got one of shape " +
                            py::str(a.attr("shape")).cast<std::string>());
    Column child = fixed_width_from_numpy(a, scalar, a.shape(0) * a.shape(1));
    return Column::nested(type, a.shape(0), 0, nullptr, nullptr, std::move(child));
  }
  if (a.ndim() != 1)
    throw InvalidArgument("a " + type.to_string() + " column needs a 1-D array; got " +
                          std::to_string(a.ndim()) + " dimensions");
  if (scalar.id() == TypeId::Boolean) return bool_from_numpy(a);
  return fixed_width_from_numpy(a, type, a.shape(0));
}

Column column_from_values(py::handle obj, std::optional<DataType> type) {
  std::vector<py::object> items;
  for (py::handle item : py::iter(obj)) items.push_back(py::reinterpret_borrow<py::object>(item));
  std::vector<Value> values;
  const bool typed = type && holds_struct_or_map(*type);
  for (const py::object& item : items)
    values.push_back(typed ? to_typed_value(item, *type) : to_value(item));
  const DataType t = type ? *type : infer_type(values);
  if (t.id() == TypeId::Null) return Column::nulls(t, static_cast<int64_t>(values.size()));
  if (!typed && holds_struct_or_map(t)) {
    // Dicts inferred as structs: again by field name, as their keys may come in any order.
    for (size_t i = 0; i < items.size(); ++i) values[i] = to_typed_value(items[i], t);
  }
  ColumnBuilder builder(t, static_cast<int64_t>(values.size()));
  for (const Value& v : values) builder.append_value(v);
  return builder.finish();
}

}  // namespace

bool numpy_view_possible(const Column& c) {
  if (c.null_count() != 0) return false;
  if (c.type().id() == TypeId::FixedSizeList)
    return c.child().null_count() == 0 && numpy_dtype_name(c.child().type()) != nullptr;
  return numpy_dtype_name(c.type()) != nullptr;
}

py::list column_to_pylist(const Column& c) {
  if (numpy_view_possible(c) && c.type().id() != TypeId::Timestamp)
    return view_of(c).attr("tolist")();  // one C loop instead of one Value per row
  py::list out(c.size());
  const DataType type = c.type();
  for (int64_t i = 0; i < c.size(); ++i)
    out[static_cast<size_t>(i)] = from_typed_value(c.get(i), type);
  return out;
}

py::array column_to_numpy(const Column& c, bool zero_copy_only) {
  if (numpy_view_possible(c)) return view_of(c);
  if (zero_copy_only)
    throw InvalidArgument("a " + c.type().to_string() + " column" +
                          (c.null_count() ? " with nulls" : "") +
                          " cannot be a zero-copy NumPy array (zero_copy_only=True)");
  py::module_ np = py::module_::import("numpy");
  const bool numeric = c.type().is_numeric();
  if (numeric) {
    py::list values = column_to_pylist(c);
    for (size_t i = 0; i < values.size(); ++i)
      if (values[i].is_none()) values[i] = py::float_(NAN);
    return np.attr("array")(values, py::arg("dtype") = "float64").cast<py::array>();
  }
  if (c.type().id() == TypeId::Boolean && c.null_count() == 0)
    return np.attr("array")(column_to_pylist(c), py::arg("dtype") = "bool").cast<py::array>();
  py::array out = np.attr("empty")(c.size(), py::arg("dtype") = "object").cast<py::array>();
  py::list values = column_to_pylist(c);
  for (size_t i = 0; i < values.size(); ++i) out[py::int_(i)] = values[i];
  return out;
}

Column column_from_python(py::handle obj, std::optional<DataType> type) {
  if (py::isinstance<Series>(obj)) {
    const Column& c = obj.cast<const Series&>().column;
    if (type && c.type() != *type)
      throw InvalidArgument("a " + c.type().to_string() + " Series where " + type->to_string() +
                            " was declared");
    return c;
  }
  if (py::isinstance<py::array>(obj)) {
    const DataType t = type ? *type : type_of_array(obj.cast<py::array>());
    if (t.id() != TypeId::Null) {
      if (std::optional<Column> c = column_from_array(obj, t)) return *c;
    }
  }
  return column_from_values(obj, type);
}

}  // namespace ember::python
