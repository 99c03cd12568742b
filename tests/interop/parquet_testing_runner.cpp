// Reads one Parquet file with ember and prints, as one JSON line, what check_parquet_testing.mjs
// compares with DuckDB: the row count and, per column, its type, its nulls and one figure of its
// values (a number column's sum, NaNs left out and counted apart, a text or bytes column's total
// length, a bool column's trues, a date or timestamp column's sum of days or microseconds, a list
// column's item count). A file ember refuses prints the error's kind and message; anything else (a
// crash) prints nothing. With --nested-rows it prints instead every row's nested columns (structs,
// maps, lists of lists or of structs) as DuckDB renders them in JSON.
//   parquet_testing_runner [--nested-rows] FILE
#include <cmath>
#include <cstdio>
#include <string>

#include "ember/ember.h"

using namespace ember;

namespace {

std::string json_text(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

std::string number(double v) {
  if (std::isnan(v)) return "\"NaN\"";
  if (std::isinf(v)) return v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// One figure of a column's values (nulls and NaNs left out), as described above; `nans`
// counts the NaNs.
std::string figure(const Column& c, int64_t& nans) {
  double sum = 0;
  nans = 0;
  for (int64_t i = 0; i < c.size(); ++i) {
    if (c.is_null(i)) continue;
    switch (c.type().id()) {
      case TypeId::Int64:
        sum += double(c.value<int64_t>(i));
        break;
      case TypeId::Int32:
        sum += c.value<int32_t>(i);
        break;
      case TypeId::Float64:
      case TypeId::Float32: {
        const double v = c.type().id() == TypeId::Float64 ? c.value<double>(i) : c.value<float>(i);
        if (std::isnan(v)) {
          ++nans;
        } else {
          sum += v;
        }
        break;
      }
      case TypeId::Boolean:
        sum += c.value<bool>(i) ? 1 : 0;
        break;
      case TypeId::Timestamp:
        sum += double(c.value<Timestamp>(i).micros);
        break;
      case TypeId::Date32:
        sum += c.value<Date>(i).days;
        break;
      case TypeId::Utf8:
      case TypeId::Binary:
        sum += double(c.value<std::string_view>(i).size());
        break;
      case TypeId::List:
      case TypeId::Map:
      case TypeId::FixedSizeList: {
        const auto [first, last] = c.list_range(i);
        sum += double(last - first);
        break;
      }
      default:
        break;
    }
  }
  return number(sum);
}

// A value as DuckDB's getRowObjectsJson renders it: int64 as a string, a struct as an object,
// a map as an array of {key, value} objects, a list as an array.
std::string json_value(const Value& v, const DataType& t) {
  if (std::holds_alternative<std::monostate>(v)) return "null";
  if (const auto* l = std::get_if<List>(&v)) {
    std::string out = "[";
    for (size_t i = 0; i < l->items.size(); ++i)
      out += (i ? "," : "") + json_value(l->items[i], t.element());
    return out + "]";
  }
  if (const auto* s = std::get_if<Struct>(&v)) {
    std::string out = "{";
    for (size_t i = 0; i < s->fields.size(); ++i)
      out += (i ? "," : "") + json_text(s->fields[i].first) + ":" +
             json_value(s->fields[i].second, t.fields()[i].type);
    return out + "}";
  }
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (const auto* i = std::get_if<int64_t>(&v))
    return t.id() == TypeId::Int32 ? std::to_string(*i) : json_text(std::to_string(*i));
  if (const auto* d = std::get_if<double>(&v)) return number(*d);
  if (const auto* f = std::get_if<float>(&v)) return number(*f);
  return json_text(to_string(v));
}

// Every row's nested columns (structs, maps, lists of lists or of structs), one JSON array.
std::string nested_rows(const Table& t) {
  std::string out = "[";
  for (int64_t r = 0; r < t.num_rows(); ++r) {
    out += r ? ",{" : "{";
    bool first = true;
    for (const Field& f : t.schema().fields()) {
      const bool nested = f.type.id() == TypeId::Struct || f.type.id() == TypeId::Map ||
                          (f.type.is_list() && f.type.element().is_nested());
      if (!nested) continue;
      out += (first ? "" : ",") + json_text(f.name) + ":" +
             json_value(t.column(f.name).get(r), f.type);
      first = false;
    }
    out += "}";
  }
  return out + "]";
}

}  // namespace

int main(int argc, char** argv) {
  ember::init(argc, argv);
  const bool rows = argc == 3 && std::string(argv[1]) == "--nested-rows";
  if (argc != 2 && !rows) {
    std::fprintf(stderr, "usage: %s [--nested-rows] FILE\n", argv[0]);
    return 2;
  }
  try {
    const Table t = read_parquet(argv[argc - 1]).collect();
    if (rows) {
      std::printf("{\"ok\": true, \"rows\": %s}\n", nested_rows(t).c_str());
      return 0;
    }
    std::string out =
        "{\"ok\": true, \"rows\": " + std::to_string(t.num_rows()) + ", \"columns\": [";
    for (int k = 0; k < t.schema().num_fields(); ++k) {
      const Field& f = t.schema().field(k);
      const Column c = t.column(f.name);
      int64_t nans = 0;
      const std::string fig = figure(c, nans);
      out += std::string(k ? ", " : "") + "{\"name\": " + json_text(f.name) +
             ", \"type\": " + json_text(f.type.to_string()) +
             ", \"nulls\": " + std::to_string(c.null_count()) + ", \"figure\": " + fig +
             ", \"nans\": " + std::to_string(nans) + "}";
    }
    std::printf("%s]}\n", out.c_str());
  } catch (const Error& e) {
    std::printf("{\"ok\": false, \"error\": %s}\n", json_text(e.what()).c_str());
  }
  return 0;
}
