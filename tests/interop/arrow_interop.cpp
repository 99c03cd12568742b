// The ember side of the Arrow IPC interop test, around check_arrow_with_apache_arrow.mjs:
//   ember_interop_arrow write DIR   writes a table of every type (formulas below) with
//                                   write_arrow to DIR/ember/, three partitions, and in the
//                                   stream format to DIR/emberstream/, two;
//   ember_interop_arrow check DIR   reads DIR/js/*.arrow, DIR/jsdict/*.arrow and the stream
//                                   DIR/js/*.arrows (written by npm apache-arrow from the same
//                                   formulas) with read_arrow and checks every value; and
//                                   DIR/jsview/ (Utf8View and BinaryView columns, as utf8 and
//                                   binary) and DIR/jsdelta/ (a stream whose dictionary grows
//                                   by delta dictionary batches).
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "ember/ember.h"

using namespace ember;

namespace {

constexpr int64_t kRows = 5000;

Table expected() {
  std::vector<int64_t> id;
  std::vector<std::optional<int32_t>> i32;
  std::vector<float> f32;
  std::vector<std::optional<double>> f64;
  std::vector<std::optional<std::string>> s;
  std::vector<std::optional<bool>> b;
  std::vector<std::optional<Timestamp>> ts;
  std::vector<std::vector<uint8_t>> bin;
  std::vector<std::optional<std::vector<std::optional<int64_t>>>> xs;
  ColumnBuilder emb(fixed_size_list(float32(), 2));
  ColumnBuilder pt(struct_({{"x", int64()}, {"name", utf8()}}));
  ColumnBuilder kv(map(utf8(), int64()));
  for (int64_t i = 0; i < kRows; ++i) {
    id.push_back(i);
    i32.push_back(i % 7 == 0 ? std::nullopt : std::optional<int32_t>(int32_t(i * 3 - 100)));
    f32.push_back(float(i) / 4);
    f64.push_back(i % 5 == 0 ? std::nullopt : std::optional<double>(double(i) * 1.5));
    s.push_back(i % 11 == 0 ? std::nullopt : std::optional<std::string>("s" + std::to_string(i)));
    b.push_back(i % 13 == 0 ? std::nullopt : std::optional<bool>(i % 3 == 0));
    ts.push_back(i % 2 ? std::nullopt : std::optional<Timestamp>(Timestamp{(i * 1000 + 1) * 1000}));
    bin.push_back({uint8_t(i % 256), 0, 255});
    if (i % 4 == 0) {
      xs.emplace_back(std::nullopt);
    } else {
      std::vector<std::optional<int64_t>> l;
      for (int64_t k = 0; k < i % 4; ++k)
        l.push_back(k == 2 ? std::nullopt : std::optional<int64_t>(k * i));
      xs.emplace_back(l);
    }
    if (i % 9 == 0)
      emb.append_null();
    else
      emb.append_value(List{{float(i), -float(i)}, float32()});
    if (i % 6 == 0) {
      pt.append_null();
    } else {
      pt.append_value(Struct{
          {{"x", i % 3 == 0 ? Value{} : Value{i * 2}}, {"name", Value{"n" + std::to_string(i)}}}});
    }
    if (i % 8 == 0) {
      kv.append_null();
    } else {
      List entries;
      for (int64_t k = 0; k < i % 3; ++k) {
        entries.items.push_back(Struct{
            {{"key", Value{"k" + std::to_string(k)}}, {"value", k == 1 ? Value{} : Value{i + k}}}});
      }
      kv.append_value(Value{std::move(entries)});
    }
  }
  return Table::from_columns({{"id", Column::from(id)},
                              {"i32", Column::from(i32)},
                              {"f32", Column::from(f32)},
                              {"f64", Column::from(f64)},
                              {"s", Column::from(s)},
                              {"b", Column::from(b)},
                              {"ts", Column::from(ts)},
                              {"bin", Column::from(bin)},
                              {"xs", Column::from(xs)},
                              {"emb", emb.finish()},
                              {"pt", pt.finish()},
                              {"kv", kv.finish()}});
}

/// The view-typed table apache-arrow writes to DIR/jsview/, as ember reads it.
Table expected_views() {
  std::vector<int64_t> id;
  std::vector<std::optional<std::string>> sv;
  ColumnBuilder bv(binary());
  for (int64_t i = 0; i < kRows; ++i) {
    id.push_back(i);
    if (i % 11 == 0)
      sv.emplace_back(std::nullopt);
    else
      sv.emplace_back(i % 2 ? "s" + std::to_string(i)
                            : "a longer string, number " + std::to_string(i));
    if (i % 13 == 0) {
      bv.append_null();
    } else {
      std::vector<uint8_t> bytes;
      for (int64_t k = 0; k < i % 29; ++k) bytes.push_back(static_cast<uint8_t>((i + k) % 256));
      bv.append_value(Value{std::move(bytes)});
    }
  }
  return Table::from_columns(
      {{"id", Column::from(id)}, {"sv", Column::from(sv)}, {"bv", bv.finish()}});
}

/// DIR/`sub` read with read_arrow, in id order, compared with `want` value by value.
/// The stream with delta dictionaries apache-arrow writes to DIR/jsdelta/, as ember reads it:
/// row i of batch k = i / 1250 is null when i % 17 == 0, else word i % (3 * (k + 1)).
Table expected_deltas() {
  std::vector<int64_t> id;
  std::vector<std::optional<std::string>> s;
  for (int64_t i = 0; i < kRows; ++i) {
    id.push_back(i);
    const int64_t k = i / (kRows / 4);
    if (i % 17 == 0)
      s.emplace_back(std::nullopt);
    else
      s.emplace_back("word" + std::to_string(i % (3 * (k + 1))));
  }
  return Table::from_columns({{"id", Column::from(id)}, {"s", Column::from(s)}});
}

bool matches(const std::string& dir, const std::string& sub, const Table& want) {
  const Table got = read_arrow(dir + sub).sort({SortKey{col("id")}}).collect();
  if (!(got.schema() == want.schema())) {
    std::fprintf(stderr, "%s: schema %s, expected %s\n", sub.c_str(),
                 got.schema().to_string().c_str(), want.schema().to_string().c_str());
    return false;
  }
  for (int c = 0; c < want.schema().num_fields(); ++c) {
    const std::string& name = want.schema().field(c).name;
    const Column g = got.column(name), w = want.column(name);
    for (int64_t i = 0; i < kRows; ++i) {
      if (!(g.get(i) == w.get(i))) {
        std::fprintf(stderr, "%s: row %lld column %s: got %s, want %s\n", sub.c_str(),
                     static_cast<long long>(i), name.c_str(), to_string(g.get(i)).c_str(),
                     to_string(w.get(i)).c_str());
        return false;
      }
    }
  }
  std::printf("ember read apache-arrow's %s: %lld rows, every value matches\n", sub.c_str(),
              static_cast<long long>(got.num_rows()));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  init(argc, argv);
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s write|check DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[2];
  try {
    const Table want = expected();
    if (std::strcmp(argv[1], "write") == 0) {
      from_table(want, 3).write_arrow(dir + "/ember");
      ArrowWriteOptions stream;
      stream.stream = true;
      from_table(want, 2).write_arrow(dir + "/emberstream", stream);
      return 0;
    }
    // apache-arrow's plain file, its file with a dictionary-encoded text column, and its
    // stream; then its view-typed file and stream.
    for (const char* sub : {"/js/*.arrow", "/jsdict/*.arrow", "/js/*.arrows"})
      if (!matches(dir, sub, want)) return 1;
    const Table views = expected_views();
    for (const char* sub : {"/jsview/*.arrow", "/jsview/*.arrows"})
      if (!matches(dir, sub, views)) return 1;
    if (!matches(dir, "/jsdelta/*.arrows", expected_deltas())) return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
