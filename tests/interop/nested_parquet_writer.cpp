// Writes nested columns (structs, lists of lists, maps, lists of structs, maps of structs; nulls
// and empty lists at every level) with write_parquet, and beside them expected.jsonl: each row's
// values rendered the way DuckDB's JSON conversion renders them (BIGINT as a string, BLOB with
// \xNN escapes, a MAP as [{key, value}]), for check_nested_parquet_with_duckdb.mjs to compare
// with DuckDB's reading of ember's files. Usage: ember_interop_nested_parquet OUTDIR
#include <cstdio>
#include <fstream>
#include <string>

#include "ember/ember.h"

using namespace ember;

namespace {

const Value null{};

Value list_of(const DataType& element, std::vector<Value> items) {
  return Value{List{std::move(items), element}};
}

Value struct_of(std::vector<std::pair<std::string, Value>> fields) {
  return Value{Struct{std::move(fields)}};
}

const DataType kImage = struct_({{"bytes", binary()}, {"path", utf8()}});
const DataType kRecord = struct_({{"a", int64()}, {"b", list(float32())}});
const DataType kPoint = struct_({{"x", int64()}, {"y", utf8()}});
const DataType kStats = struct_({{"n", int64()}, {"tags", list(utf8())}});

// Row i of each column: formulas that put nulls and empty lists at every level.
Value image(int64_t i) {
  if (i % 11 == 0) return null;
  std::vector<uint8_t> bytes{uint8_t(i % 256), 0, '"', uint8_t('a' + i % 26), 0xff};
  return struct_of(
      {{"bytes", i % 7 == 0 ? null : Value{bytes}},
       {"path", i % 5 == 0 ? null : Value{"dir/" + std::to_string(i) + "\u00e9.png"}}});
}

Value record(int64_t i) {
  if (i % 13 == 0) return null;
  std::vector<Value> b;
  for (int64_t k = 0; k < i % 5; ++k)
    b.push_back((i + k) % 6 == 0 ? null : Value{float(i) / float(k + 3)});
  return struct_of({{"a", i % 3 == 0 ? null : Value{i * 123456789012}},
                    {"b", i % 4 == 0 ? null : list_of(float32(), b)}});
}

Value list_list(int64_t i) {
  if (i % 9 == 0) return null;
  std::vector<Value> outer;
  for (int64_t j = 0; j < i % 4; ++j) {
    if ((i + j) % 5 == 0) {
      outer.push_back(null);
      continue;
    }
    std::vector<Value> inner;
    if ((i + j) % 5 != 1)
      for (int64_t k = 0; k < (i + j) % 3 + 1; ++k)
        inner.push_back((i + j + k) % 7 == 0 ? null : Value{i * 10 + j * 3 + k});
    outer.push_back(list_of(int32(), inner));
  }
  return list_of(list(int32()), outer);
}

Value list_list_list(int64_t i) {
  if (i % 10 == 0) return null;
  std::vector<Value> outer;
  for (int64_t j = 0; j < i % 3; ++j) {
    if ((i + j) % 4 == 0) {
      outer.push_back(null);
      continue;
    }
    std::vector<Value> mid;
    for (int64_t k = 0; k < (i + j) % 3; ++k) {
      if ((i + j + k) % 5 == 0) {
        mid.push_back(null);
        continue;
      }
      std::vector<Value> inner;
      for (int64_t m = 0; m < (i + j + k) % 3; ++m) {
        const std::string s = "s" + std::to_string(i) + "." + std::to_string(j) + "." +
                              std::to_string(k) + "." + std::to_string(m);
        inner.push_back((i + j + k + m) % 6 == 0 ? null : Value{s});
      }
      mid.push_back(list_of(utf8(), inner));
    }
    outer.push_back(list_of(list(utf8()), mid));
  }
  return list_of(list(list(utf8())), outer);
}

Value counts(int64_t i, const DataType& type) {
  if (i % 8 == 0) return null;
  std::vector<Value> entries;
  for (int64_t e = 0; e < i % 4; ++e)
    entries.push_back(struct_of({{"key", Value{"k" + std::to_string(e)}},
                                 {"value", (i + e) % 3 == 0 ? null : Value{i * e - 5}}}));
  return list_of(type.element(), entries);
}

Value points(int64_t i) {
  if (i % 12 == 0) return null;
  std::vector<Value> items;
  for (int64_t k = 0; k < i % 3; ++k) {
    const int64_t n = i + k;
    items.push_back(n % 4 == 0
                        ? null
                        : struct_of({{"x", n % 5 == 0 ? null : Value{n}},
                                     {"y", n % 7 == 0 ? null : Value{"p" + std::to_string(i)}}}));
  }
  return list_of(kPoint, items);
}

Value stats_map(int64_t i, const DataType& type) {
  if (i % 6 == 1) return null;
  std::vector<Value> entries;
  for (int64_t e = 0; e < i % 3; ++e) {
    std::vector<Value> tags;
    for (int64_t t = 0; t < (i + e) % 3; ++t) tags.push_back(Value{"t" + std::to_string(i + t)});
    const Value stats =
        (i + e) % 4 == 0 ? null
                         : struct_of({{"n", (i + e) % 5 == 0 ? null : Value{i + e}},
                                      {"tags", (i + e) % 7 == 0 ? null : list_of(utf8(), tags)}});
    entries.push_back(struct_of({{"key", Value{"key" + std::to_string(e)}}, {"value", stats}}));
  }
  return list_of(type.element(), entries);
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\', out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// DuckDB's BLOB-to-VARCHAR text: control bytes, quotes and bytes >= 0x7f as \xNN.
std::string blob_text(const std::vector<uint8_t>& bytes) {
  std::string out;
  for (const uint8_t b : bytes) {
    if (b <= 0x1f || b == '"' || b == '\'' || b >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", b);
      out += buf;
    } else {
      out += char(b);
    }
  }
  return out;
}

// `v` (of type `t`) as DuckDB's JSON conversion gives it.
std::string render(const Value& v, const DataType& t) {
  if (std::holds_alternative<std::monostate>(v)) return "null";
  std::string out;
  switch (t.id()) {
    case TypeId::Int64:
      return "\"" + std::to_string(std::get<int64_t>(v)) + "\"";
    case TypeId::Int32:
      return std::to_string(std::get<int64_t>(v));
    case TypeId::Float32: {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g", double(std::get<float>(v)));
      return buf;
    }
    case TypeId::Utf8:
      return json_string(std::get<std::string>(v));
    case TypeId::Binary:
      return json_string(blob_text(std::get<std::vector<uint8_t>>(v)));
    case TypeId::Struct: {
      const Struct& s = std::get<Struct>(v);
      for (size_t f = 0; f < s.fields.size(); ++f)
        out += (f ? "," : "{") + json_string(s.fields[f].first) + ":" +
               render(s.fields[f].second, t.fields()[f].type);
      return out.empty() ? "{}" : out + "}";
    }
    case TypeId::List:
    case TypeId::Map: {
      // A map entry renders as the struct {"key": ..., "value": ...}: DuckDB's form too.
      const List& l = std::get<List>(v);
      for (size_t k = 0; k < l.items.size(); ++k)
        out += (k ? "," : "[") + render(l.items[k], t.element());
      return out.empty() ? "[]" : out + "]";
    }
    default:
      throw std::runtime_error("no rendering for " + t.to_string());
  }
}

}  // namespace

int main(int argc, char** argv) {
  init(argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
    return 2;
  }
  const std::string out = argv[1];
  const int64_t n = 70000;  // the first row group holds two pages of each leaf
  const DataType counts_type = map(utf8(), int64()), stats_type = map(utf8(), kStats);
  const Schema schema({{"id", int64()},
                       {"img", kImage},
                       {"rec", kRecord},
                       {"ll", list(list(int32()))},
                       {"lll", list(list(list(utf8())))},
                       {"counts", counts_type},
                       {"pts", list(kPoint)},
                       {"stats", stats_type}});
  std::vector<ColumnBuilder> builders;
  for (const Field& f : schema.fields()) builders.emplace_back(f.type);
  std::ofstream expected(out + "/expected.jsonl");
  for (int64_t i = 0; i < n; ++i) {
    const Value row[] = {Value{i},          image(i),
                         record(i),         list_list(i),
                         list_list_list(i), counts(i, counts_type),
                         points(i),         stats_map(i, stats_type)};
    std::string line;
    for (int c = 0; c < schema.num_fields(); ++c) {
      builders[size_t(c)].append_value(row[c]);
      line += (c ? "," : "{") + json_string(schema.field(c).name) + ":" +
              render(row[c], schema.field(c).type);
    }
    expected << line << "}\n";
  }
  std::vector<std::pair<std::string, Column>> columns;
  for (int c = 0; c < schema.num_fields(); ++c)
    columns.emplace_back(schema.field(c).name, builders[size_t(c)].finish());
  const Table table = Table::from_columns(std::move(columns));
  // One file of a large and a small row group, and three files of many small row groups.
  ParquetWriteOptions o;
  o.row_group_rows = 66000;
  o.compression = Compression::Zstd;
  from_table(table, 1).write_parquet(out + "/nested", o);
  o.row_group_rows = 997;
  o.compression = Compression::Snappy;
  from_table(table, 3).write_parquet(out + "/nested-small", o);
  std::printf("ember wrote %lld rows of nested columns\n", static_cast<long long>(n));
  return 0;
}
