// ember.DataType, Field, Schema, and the type constructors (int64(), list_(t), ...).
#include <pybind11/operators.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>

#include "bindings.h"
#include "ember/ember.h"

namespace ember::python {

namespace py = pybind11;

namespace {

/// A type as plain data for pickle (it crosses into worker processes inside a UDF's class).
py::tuple type_state(const DataType& t) {
  py::object element = t.is_list() ? py::object(type_state(t.element())) : py::none();
  if (t.id() == TypeId::Struct) {
    py::list fields;
    for (const Field& f : t.fields()) fields.append(py::make_tuple(f.name, type_state(f.type)));
    element = fields;
  }
  return py::make_tuple(static_cast<int>(t.id()), t.list_size(), element);
}

DataType type_from_state(const py::tuple& s) {
  const auto id = static_cast<TypeId>(s[0].cast<int>());
  if (id == TypeId::List) return DataType::list_of(type_from_state(s[2].cast<py::tuple>()));
  if (id == TypeId::FixedSizeList)
    return DataType::fixed_size_list_of(type_from_state(s[2].cast<py::tuple>()),
                                        s[1].cast<int32_t>());
  if (id == TypeId::Map) {
    const DataType kv = type_from_state(s[2].cast<py::tuple>());
    return DataType::map_of(kv.fields()[0].type, kv.fields()[1].type);
  }
  if (id == TypeId::Struct) {
    std::vector<Field> fields;
    for (py::handle f : s[2].cast<py::list>()) {
      auto pair = f.cast<py::tuple>();
      fields.push_back(
          Field{pair[0].cast<std::string>(), type_from_state(pair[1].cast<py::tuple>())});
    }
    return DataType::struct_of(std::move(fields));
  }
  return DataType(id);
}

/// "ember.list_(ember.int64())": an expression that builds the type again.
std::string type_repr(const DataType& t) {
  switch (t.id()) {
    case TypeId::Null:
      return "ember.null()";
    case TypeId::Boolean:
      return "ember.boolean()";
    case TypeId::Int64:
      return "ember.int64()";
    case TypeId::Float64:
      return "ember.float64()";
    case TypeId::Utf8:
      return "ember.utf8()";
    case TypeId::Int32:
      return "ember.int32()";
    case TypeId::Float32:
      return "ember.float32()";
    case TypeId::Binary:
      return "ember.binary()";
    case TypeId::Timestamp:
      return "ember.timestamp_us()";
    case TypeId::Date32:
      return "ember.date32()";
    case TypeId::List:
      return "ember.list_(" + type_repr(t.element()) + ")";
    case TypeId::FixedSizeList:
      return "ember.fixed_size_list(" + type_repr(t.element()) + ", " +
             std::to_string(t.list_size()) + ")";
    case TypeId::Struct: {
      std::string out = "ember.struct_([";
      for (size_t i = 0; i < t.fields().size(); ++i) {
        out += (i ? ", (\"" : "(\"") + t.fields()[i].name + "\", " + type_repr(t.fields()[i].type) +
               ")";
      }
      return out + "])";
    }
    case TypeId::Map:
      return "ember.map_(" + type_repr(t.element().fields()[0].type) + ", " +
             type_repr(t.element().fields()[1].type) + ")";
  }
  return t.to_string();
}

void bind_data_type(py::module_& m) {
  py::class_<DataType>(m, "DataType", "A column type; compare with ==, e.g. t == ember.int64().")
      .def("__str__", &DataType::to_string)
      .def("__repr__", &type_repr)
      .def(py::self == py::self)
      .def(py::self != py::self)
      .def("__hash__", [](const DataType& t) { return py::hash(py::str(t.to_string())); })
      .def_property_readonly("element", &DataType::element,
                             "The item type of a list type (the null type otherwise).")
      .def_property_readonly("list_size", &DataType::list_size,
                             "Items per value of a fixed_size_list (0 otherwise).")
      .def_property_readonly("is_numeric", &DataType::is_numeric)
      .def_property_readonly("is_list", &DataType::is_list)
      .def_property_readonly(
          "fields",
          [](const DataType& t) {
            std::vector<std::pair<std::string, DataType>> out;
            for (const Field& f : t.fields()) out.emplace_back(f.name, f.type);
            return out;
          },
          "A struct's (name, type) fields (empty otherwise).")
      .def(py::pickle([](const DataType& t) { return type_state(t); },
                      [](const py::tuple& s) { return type_from_state(s); }));
  m.def(
      "null", [] { return DataType(); }, "The type of a literal None.");
  m.def("boolean", &boolean, "true or false.");
  m.def("int64", &int64, "64-bit signed integers.");
  m.def("int32", &int32, "32-bit signed integers.");
  m.def("float64", &float64, "64-bit floating point.");
  m.def("float32", &float32, "32-bit floating point.");
  m.def("utf8", &utf8, "UTF-8 text (Python str).");
  m.def("binary", &binary, "Arbitrary bytes (Python bytes).");
  m.def("timestamp_us", &timestamp_us, "Microseconds since 1970-01-01 UTC (Python datetime).");
  m.def("date32", &date32, "Calendar days since 1970-01-01 (Python datetime.date).");
  m.def("list_", &list, py::arg("element"), "Lists of any length of `element` (ember.list).");
  m.def("fixed_size_list", &fixed_size_list, py::arg("element"), py::arg("n"),
        "Lists of exactly n items each, e.g. an embedding: fixed_size_list(float32(), 384).");
  m.def(
      "struct_",
      [](const std::vector<std::pair<std::string, DataType>>& fields) {
        std::vector<Field> f;
        for (const auto& [name, type] : fields) f.push_back(Field{name, type});
        return struct_(std::move(f));
      },
      py::arg("fields"),
      "Named fields, e.g. struct_([(\"bytes\", binary()), (\"path\", utf8())]) (ember.struct_).");
  m.def("map_", &map, py::arg("key"), py::arg("value"),
        "Key/value pairs: a list of struct<key, value> (ember.map).");
}

}  // namespace

void bind_types(py::module_& m) {
  bind_data_type(m);
  py::class_<Field>(m, "Field", "A named, typed column slot of a Schema.")
      .def_readonly("name", &Field::name)
      .def_readonly("type", &Field::type)
      .def("__repr__",
           [](const Field& f) { return "Field('" + f.name + "', " + type_repr(f.type) + ")"; });
  py::class_<Schema>(m, "Schema", "Ordered (name, type) fields of a table or frame.")
      .def_property_readonly("names",
                             [](const Schema& s) {
                               std::vector<std::string> names;
                               for (const Field& f : s.fields()) names.push_back(f.name);
                               return names;
                             })
      .def_property_readonly("types",
                             [](const Schema& s) {
                               std::vector<DataType> types;
                               for (const Field& f : s.fields()) types.push_back(f.type);
                               return types;
                             })
      .def("field", [](const Schema& s, int i) { return s.field(i); })
      .def("index_of", &Schema::index_of, "Position of the field called `name`, or -1.")
      .def("__len__", &Schema::num_fields)
      .def(
          "__iter__",
          [](const Schema& s) { return py::make_iterator(s.fields().begin(), s.fields().end()); },
          py::keep_alive<0, 1>())
      .def("__getitem__",
           [](const Schema& s, const std::string& name) {
             const int i = s.index_of(name);
             if (i < 0) throw py::key_error(name);
             return s.field(i).type;
           })
      .def("__contains__", [](const Schema& s, const std::string& n) { return s.index_of(n) >= 0; })
      .def(py::self == py::self)
      .def("__str__", &Schema::to_string)
      .def("__repr__", [](const Schema& s) { return "Schema(" + s.to_string() + ")"; });
}

}  // namespace ember::python
