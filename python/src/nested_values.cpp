// Python values of a known ember type: structs as dicts, maps as (key, value) tuples, both
// converted through their fields' and entries' own types; see nested_values.h.
#include "nested_values.h"

#include <string>
#include <utility>

#include "python_values.h"

namespace ember::python {

namespace {

std::string python_type_name(py::handle obj) {
  return py::str(obj.get_type().attr("__name__")).cast<std::string>();
}

bool is_sequence(py::handle obj) {
  return py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj);
}

py::object map_to_python(const List& entries, const DataType& type) {
  const DataType& key = type.element().fields()[0].type;
  const DataType& value = type.element().fields()[1].type;
  py::list out;
  for (const Value& e : entries.items) {
    const auto* kv = std::get_if<Struct>(&e);
    if (kv == nullptr || kv->fields.size() != 2) {
      out.append(py::none());  // a null entry (Arrow forbids them; shown as they are)
      continue;
    }
    out.append(py::make_tuple(from_typed_value(kv->fields[0].second, key),
                              from_typed_value(kv->fields[1].second, value)));
  }
  return out;
}

Value struct_from_python(py::handle obj, const DataType& type) {
  if (!py::isinstance<py::dict>(obj))
    throw InvalidArgument("a " + type.to_string() + " value is a dict of its fields; got a " +
                          python_type_name(obj));
  const py::dict d = py::reinterpret_borrow<py::dict>(obj);
  for (const auto& item : d) {
    const py::handle key = item.first;
    if (!py::isinstance<py::str>(key) || type.field_index(key.cast<std::string>()) < 0)
      throw InvalidArgument(type.to_string() + " has no field " +
                            py::repr(key).cast<std::string>());
  }
  Struct s;
  for (const Field& f : type.fields()) {
    const py::str name(f.name);
    s.fields.emplace_back(f.name, d.contains(name) ? to_typed_value(d[name], f.type) : Value{});
  }
  return Value{std::move(s)};
}

Value map_from_python(py::handle obj, const DataType& type) {
  const bool dict = py::isinstance<py::dict>(obj);
  if (!dict && !is_sequence(obj))
    throw InvalidArgument("a " + type.to_string() +
                          " value is a dict or a list of (key, value) pairs; got a " +
                          python_type_name(obj));
  const DataType& key_type = type.element().fields()[0].type;
  const DataType& value_type = type.element().fields()[1].type;
  List entries;
  entries.element = type.element();
  const py::object pairs = dict ? obj.attr("items")() : py::reinterpret_borrow<py::object>(obj);
  for (py::handle pair : py::iter(pairs)) {
    if (!is_sequence(pair) || py::len(pair) != 2)
      throw InvalidArgument("a " + type.to_string() + " entry is a (key, value) pair; got " +
                            py::repr(pair).cast<std::string>());
    const py::sequence kv = py::reinterpret_borrow<py::sequence>(pair);
    Value key = to_typed_value(kv[0], key_type);
    if (key.index() == 0)
      throw InvalidArgument("a " + type.to_string() + " key cannot be None (Arrow maps have none)");
    entries.items.push_back(
        Struct{{{"key", std::move(key)}, {"value", to_typed_value(kv[1], value_type)}}});
  }
  return Value{std::move(entries)};
}

/// The wider of two inferred types (see infer_type); on a conflict the first, so that
/// appending the other value reports it.
DataType merged(const DataType& a, const DataType& b) {
  if (a.id() == TypeId::Null) return b;
  if (b.id() == TypeId::Null || a == b) return a;
  if ((a.id() == TypeId::Int64 && b.id() == TypeId::Float64) ||
      (a.id() == TypeId::Float64 && b.id() == TypeId::Int64))
    return float64();
  if (a.id() == TypeId::List && b.id() == TypeId::List)
    return list(merged(a.element(), b.element()));
  if (a.id() == TypeId::Struct && b.id() == TypeId::Struct) {
    std::vector<Field> fields = a.fields();
    for (const Field& f : b.fields()) {
      const int i = a.field_index(f.name);
      if (i < 0)
        fields.push_back(f);
      else
        fields[size_t(i)].type = merged(fields[size_t(i)].type, f.type);
    }
    return struct_(std::move(fields));
  }
  return a;
}

/// A value's type, looking at every item of a list and every field of a struct; an empty
/// untyped list has the Null type (its items' type unknown).
DataType value_type(const Value& v) {
  if (const auto* l = std::get_if<List>(&v)) {
    if (l->element.id() != TypeId::Null) return list(l->element);
    DataType element;
    for (const Value& item : l->items) element = merged(element, value_type(item));
    return l->items.empty() ? DataType() : list(element);
  }
  if (const auto* s = std::get_if<Struct>(&v)) {
    std::vector<Field> fields;
    for (const auto& [name, value] : s->fields) fields.push_back({name, value_type(value)});
    return struct_(std::move(fields));
  }
  return type_of(v);
}

}  // namespace

py::object from_typed_value(const Value& v, const DataType& type) {
  if (v.index() == 0) return py::none();
  if (const auto* s = std::get_if<Struct>(&v); s && type.id() == TypeId::Struct) {
    py::dict out;
    const std::vector<Field>& fields = type.fields();
    for (size_t i = 0; i < s->fields.size(); ++i) {
      const DataType field_type = i < fields.size() ? fields[i].type : DataType();
      out[py::str(s->fields[i].first)] = from_typed_value(s->fields[i].second, field_type);
    }
    return out;
  }
  if (const auto* l = std::get_if<List>(&v)) {
    if (type.id() == TypeId::Map) return map_to_python(*l, type);
    if (type.is_list()) {
      py::list out;
      for (const Value& item : l->items) out.append(from_typed_value(item, type.element()));
      return out;
    }
  }
  return from_value(v);
}

Value to_typed_value(py::handle obj, const DataType& type) {
  if (obj.is_none()) return Value{};
  if (type.id() == TypeId::Struct) return struct_from_python(obj, type);
  if (type.id() == TypeId::Map) return map_from_python(obj, type);
  if (type.is_list() && holds_struct_or_map(type.element()) && is_sequence(obj)) {
    List l;
    l.element = type.element();
    for (py::handle item : obj) l.items.push_back(to_typed_value(item, type.element()));
    return Value{std::move(l)};
  }
  return to_value(obj);
}

bool holds_struct_or_map(const DataType& type) {
  if (type.id() == TypeId::Struct || type.id() == TypeId::Map) return true;
  return type.is_list() && holds_struct_or_map(type.element());
}

DataType infer_type(const std::vector<Value>& values) {
  DataType found;
  for (const Value& v : values) found = merged(found, value_type(v));
  return found;
}

}  // namespace ember::python
