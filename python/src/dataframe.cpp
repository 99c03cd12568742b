// ember.DataFrame and GroupedDataFrame: the lazy query API with Python conventions (varargs of
// column names or expressions, keyword run options), and the sources that start a frame.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>

#include "bindings.h"
#include "column_conversion.h"
#include "ember/ember.h"
#include "python_values.h"
#include "run_options.h"

namespace ember::python {

namespace py = pybind11;

namespace {

/// A per-key flag: one bool for every key, or a list with one per key.
std::vector<bool> per_key(py::handle flag, size_t keys, const char* what) {
  if (py::isinstance<py::bool_>(flag)) return std::vector<bool>(keys, flag.cast<bool>());
  std::vector<bool> out = flag.cast<std::vector<bool>>();
  if (out.size() != keys)
    throw InvalidArgument(std::string(what) + " has " + std::to_string(out.size()) +
                          " entries for " + std::to_string(keys) + " sort keys");
  return out;
}

std::vector<SortKey> sort_keys(const py::args& keys, py::handle descending,
                               py::handle nulls_first) {
  if (keys.empty()) throw InvalidArgument("sort needs at least one key");
  std::vector<Expr> exprs = to_exprs(keys, true);
  std::vector<bool> desc = per_key(descending, exprs.size(), "descending");
  std::vector<bool> first = per_key(nulls_first, exprs.size(), "nulls_first");
  std::vector<SortKey> out;
  for (size_t i = 0; i < exprs.size(); ++i) out.push_back({exprs[i], desc[i], first[i]});
  return out;
}

JoinType join_type(const std::string& how) {
  if (how == "inner") return JoinType::Inner;
  if (how == "left") return JoinType::Left;
  if (how == "right") return JoinType::Right;
  if (how == "full" || how == "outer") return JoinType::Full;
  if (how == "semi") return JoinType::Semi;
  if (how == "anti") return JoinType::Anti;
  throw InvalidArgument("join how='" + how + "': use inner, left, right, full, semi or anti");
}

std::vector<std::string> names(py::handle on) {
  if (py::isinstance<py::str>(on)) return {on.cast<std::string>()};
  return on.cast<std::vector<std::string>>();
}

Compression compression(const std::string& name) {
  if (name == "snappy") return Compression::Snappy;
  if (name == "zstd") return Compression::Zstd;
  if (name == "gzip") return Compression::Gzip;
  if (name == "lz4") return Compression::Lz4;
  if (name == "none") return Compression::None;
  throw InvalidArgument("compression='" + name + "': use snappy, zstd, gzip, lz4 or none");
}

/// Runs a write without the GIL (see run_query).
template <class F>
QueryResult write(const DataFrame& df, const py::kwargs& run, F call) {
  return run_query<QueryResult>(run_options_from(run),
                                [df, call](const RunOptions& o) { return call(df, o); });
}

std::string safe_explain(const DataFrame& df) {
  try {
    return df.explain();
  } catch (const Error& e) {
    return std::string("DataFrame (its plan does not build: ") + e.what() + ")";
  }
}

void bind_transforms(py::class_<DataFrame>& c) {
  c.def(
       "select", [](const DataFrame& d, py::args e) { return d.select(to_exprs(e, true)); },
       "One column per argument: a column name or an expression.")
      .def(
          "with_column",
          [](const DataFrame& d, std::string name, py::object e) {
            return d.with_column(std::move(name), to_expr(e, false));
          },
          py::arg("name"), py::arg("expr"),
          "This frame's columns with `expr` as column `name` (a Python value is a literal).")
      .def(
          "where", [](const DataFrame& d, py::object p) { return d.where(to_expr(p, true)); },
          py::arg("predicate"), "The rows where `predicate` is true (null counts as false).")
      .def(
          "filter", [](const DataFrame& d, py::object p) { return d.where(to_expr(p, true)); },
          py::arg("predicate"), "Same as where().")
      .def("limit", &DataFrame::limit, py::arg("n"), "The first n rows.")
      .def("repartition", &DataFrame::repartition, py::arg("num_partitions"))
      .def("explode", &DataFrame::explode, py::arg("column"),
           "One row per item of the list column `column`.")
      .def(
          "agg", [](const DataFrame& d, py::args a) { return d.agg(to_exprs(a, true)); },
          "A global aggregate: one row, e.g. agg(col('x').sum(), col('x').max()).")
      .def(
          "group_by",
          [](const DataFrame& d, py::args keys) { return d.group_by(to_exprs(keys, true)); },
          "Groups by columns (names) or expressions, for .agg(...).")
      .def(
          "join",
          [](const DataFrame& d, const DataFrame& right, py::object on, const std::string& how) {
            return d.join(right, names(on), join_type(how));
          },
          py::arg("right"), py::arg("on"), py::arg("how") = "inner",
          "Join on equal `on` columns: how = inner, left, right, full, semi or anti.")
      .def(
          "sort",
          [](const DataFrame& d, py::args keys, py::object descending, py::object nulls_first) {
            return d.sort(sort_keys(keys, descending, nulls_first));
          },
          py::kw_only(), py::arg("descending") = false, py::arg("nulls_first") = false,
          "Ordered by the keys; descending/nulls_first: one bool or one per key.")
      .def(
          "top_k",
          [](const DataFrame& d, int64_t n, py::args keys, py::object descending,
             py::object nulls_first) {
            return d.top_k(n, sort_keys(keys, descending, nulls_first));
          },
          py::arg("n"), py::kw_only(), py::arg("descending") = false,
          py::arg("nulls_first") = false, "The first n rows of sort(keys...).")
      .def(
          "distinct",
          [](const DataFrame& d, py::args columns) {
            return d.distinct(columns.cast<std::vector<std::string>>());
          },
          "One row per distinct value of the named columns (all when none).");
}

void bind_running(py::class_<DataFrame>& c) {
  c.def_property_readonly("schema", &DataFrame::schema, "Output schema (types checked).")
      .def_property_readonly("columns",
                             [](const DataFrame& d) {
                               const Schema schema = d.schema();  // a value, kept alive here
                               std::vector<std::string> out;
                               for (const Field& f : schema.fields()) out.push_back(f.name);
                               return out;
                             })
      .def(
          "explain",
          [](const DataFrame& d, py::kwargs run) {
            return run_query<std::string>(run_options_from(run),
                                          [d](const RunOptions& o) { return d.explain(o); });
          },
          "Logical plan, optimized plan, actor pools and resources.")
      .def(
          "collect",
          [](const DataFrame& d, py::kwargs run) {
            return run_query<Table>(run_options_from(run),
                                    [d](const RunOptions& o) { return d.collect(o); });
          },
          "Runs the query and returns its rows as a Table. Keyword run options: threads, "
          "progress, memory_budget_bytes, session, resources, wait_for_resources.")
      .def(
          "execute",
          [](const DataFrame& d, py::kwargs run) {
            return run_query<QueryResult>(run_options_from(run),
                                          [d](const RunOptions& o) { return d.execute(o); });
          },
          "Runs the query: QueryResult(table, stats, rejected). Run options as collect().")
      .def(
          "write_parquet",
          [](const DataFrame& d, std::string dir, const std::string& codec, int64_t rg,
             py::kwargs run) {
            ParquetWriteOptions f{compression(codec), rg};
            return write(d, run, [dir, f](const DataFrame& df, const RunOptions& o) {
              return df.write_parquet(dir, f, o);
            });
          },
          py::arg("dir"), py::arg("compression") = "snappy",
          py::arg("row_group_rows") = int64_t{1} << 20,
          "One part-NNNNN.parquet per partition, replacing `dir` atomically on success. "
          "Run options (resumable=, ...) as keywords.")
      .def(
          "write_csv",
          [](const DataFrame& d, std::string dir, py::kwargs run) {
            return write(d, run, [dir](const DataFrame& df, const RunOptions& o) {
              return df.write_csv(dir, {}, o);
            });
          },
          py::arg("dir"), "As write_parquet, with CSV files.")
      .def(
          "write_jsonl",
          [](const DataFrame& d, std::string dir, py::kwargs run) {
            return write(d, run, [dir](const DataFrame& df, const RunOptions& o) {
              return df.write_jsonl(dir, {}, o);
            });
          },
          py::arg("dir"), "As write_parquet, with JSON-lines files.")
      .def(
          "write_arrow",
          [](const DataFrame& d, std::string dir, const std::string& codec, bool stream,
             py::kwargs run) {
            ArrowWriteOptions a{compression(codec)};
            a.stream = stream;
            return write(d, run, [dir, a](const DataFrame& df, const RunOptions& o) {
              return df.write_arrow(dir, a, o);
            });
          },
          py::arg("dir"), py::arg("compression") = "none", py::arg("stream") = false,
          "As write_parquet, with Arrow IPC files: compression 'none', 'zstd' or 'lz4'; "
          "stream=True writes the IPC stream format (part-NNNNN.arrows) instead of the file "
          "format (part-NNNNN.arrow). read_arrow reads both.")
      .def("__repr__", &safe_explain);
}

Table table_from_pydict(const py::dict& data) {
  std::vector<std::pair<std::string, Column>> columns;
  for (auto [name, values] : data)
    columns.emplace_back(name.cast<std::string>(), column_from_python(values, std::nullopt));
  return Table::from_columns(std::move(columns));
}

void bind_sources(py::module_& m) {
  m.def("range", &range, py::arg("n"), py::arg("partitions") = 1,
        "One int64 column 'id' = 0..n-1.");
  m.def(
      "from_pydict",
      [](const py::dict& data, int partitions) {
        return from_table(table_from_pydict(data), partitions);
      },
      py::arg("data"), py::arg("partitions") = 1,
      "A frame of {column name: list or NumPy array}; types are inferred.");
  m.def("from_table", &from_table, py::arg("table"), py::arg("partitions") = 1,
        "A frame over a collected Table.");
  m.def(
      "read_parquet",
      [](std::string path, std::vector<std::string> columns) {
        return read_parquet(std::move(path), ParquetOptions{std::move(columns)});
      },
      py::arg("path"), py::arg("columns") = std::vector<std::string>{},
      "Parquet files (a glob reads many); one partition per row group.");
  m.def(
      "read_csv",
      [](std::string path, const std::string& delimiter, std::optional<Schema> schema,
         int64_t infer_rows) {
        if (delimiter.size() != 1) throw InvalidArgument("delimiter must be one character");
        CsvOptions o;
        o.delimiter = delimiter[0];
        o.schema = std::move(schema);
        o.infer_rows = infer_rows;
        return read_csv(std::move(path), o);
      },
      py::arg("path"), py::arg("delimiter") = ",", py::arg("schema") = py::none(),
      py::arg("infer_rows") = 1000, "CSV files with a header row; types inferred.");
  m.def(
      "read_jsonl",
      [](std::string path, int64_t infer_rows) {
        JsonlOptions o;
        o.infer_rows = infer_rows;
        return read_jsonl(std::move(path), o);
      },
      py::arg("path"), py::arg("infer_rows") = 1000, "One JSON object per line.");
  m.def(
      "read_arrow", [](std::string path) { return read_arrow(std::move(path)); }, py::arg("path"),
      "Arrow IPC files (the file format).");
  m.def(
      "schema",
      [](const std::vector<std::pair<std::string, DataType>>& fields) {
        std::vector<Field> fs;
        for (const auto& [n, t] : fields) fs.push_back({n, t});
        return Schema(std::move(fs));
      },
      py::arg("fields"), "A Schema from [(name, type), ...].");
}

}  // namespace

void bind_dataframe(py::module_& m) {
  py::class_<DataFrame> c(m, "DataFrame", R"doc(
A lazy query. Every method returns a new DataFrame; nothing runs until collect(), execute() or
a write_*() call. repr() shows the plan (explain()).)doc");
  bind_transforms(c);
  bind_running(c);
  py::class_<GroupedDataFrame>(m, "GroupedDataFrame", "A frame grouped by keys, for agg().")
      .def(
          "agg", [](const GroupedDataFrame& g, py::args a) { return g.agg(to_exprs(a, true)); },
          "One row per distinct key: the keys, then one column per aggregate.");
  bind_sources(m);
}

}  // namespace ember::python
