// ember.Table (collected rows), ember.QueryResult and the stats a query reports.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>

#include "bindings.h"
#include "column_conversion.h"
#include "ember/ember.h"
#include "series.h"

namespace ember::python {

namespace py = pybind11;

namespace {

py::dict table_to_pydict(const Table& t) {
  py::dict out;
  for (const Field& f : t.schema().fields())
    out[py::str(f.name)] = column_to_pylist(t.column(f.name));
  return out;
}

py::list table_to_pylist(const Table& t) {
  py::dict columns = table_to_pydict(t);
  py::list rows;
  for (int64_t i = 0; i < t.num_rows(); ++i) {
    py::dict row;
    for (auto [name, values] : columns) row[name] = values.cast<py::list>()[static_cast<size_t>(i)];
    rows.append(row);
  }
  return rows;
}

/// A pandas DataFrame: fixed-width columns without nulls go in as NumPy arrays (pandas may
/// copy them into its own blocks), others as lists.
py::object table_to_pandas(const Table& t) {
  py::module_ pd = py::module_::import("pandas");
  py::dict data;
  for (const Field& f : t.schema().fields()) {
    const Column c = t.column(f.name);
    if (numpy_view_possible(c) && c.type().id() != TypeId::FixedSizeList)
      data[py::str(f.name)] = column_to_numpy(c, true);
    else
      data[py::str(f.name)] = pd.attr("Series")(column_to_pylist(c), py::arg("dtype") = "object");
  }
  py::list names;
  for (const Field& f : t.schema().fields()) names.append(f.name);
  return pd.attr("DataFrame")(data, py::arg("columns") = names);
}

void bind_stats(py::module_& m) {
  py::class_<UdfStats>(m, "UdfStats", "One UDF's figures for a query (QueryStats.udfs).")
      .def_readonly("name", &UdfStats::name)
      .def_readonly("actors", &UdfStats::actors)
      .def_readonly("inits", &UdfStats::inits)
      .def_readonly("batches", &UdfStats::batches)
      .def_readonly("rows", &UdfStats::rows)
      .def_readonly("init_seconds", &UdfStats::init_seconds)
      .def_readonly("busy_seconds", &UdfStats::busy_seconds)
      .def_readonly("retries", &UdfStats::retries)
      .def_readonly("failed_rows", &UdfStats::failed_rows)
      .def_readonly("timeouts", &UdfStats::timeouts)
      .def_readonly("peak_actors", &UdfStats::peak_actors)
      .def_readonly("scale_ups", &UdfStats::scale_ups)
      .def_readonly("scale_downs", &UdfStats::scale_downs)
      .def_readonly("held_cpus", &UdfStats::held_cpus)
      .def_readonly("held_gpus", &UdfStats::held_gpus)
      .def_readonly("held_memory_bytes", &UdfStats::held_memory_bytes)
      .def_readonly("actors_per_rank", &UdfStats::actors_per_rank)
      .def_readonly("inits_per_rank", &UdfStats::inits_per_rank)
      .def("__repr__", [](const UdfStats& s) {
        return "UdfStats(name='" + s.name + "', actors=" + std::to_string(s.actors) +
               ", inits=" + std::to_string(s.inits) + ", batches=" + std::to_string(s.batches) +
               ", rows=" + std::to_string(s.rows) + ")";
      });
  py::class_<RankStats>(m, "RankStats", "What one rank did for a query (QueryStats.ranks).")
      .def_readonly("rank", &RankStats::rank)
      .def_readonly("partitions", &RankStats::partitions)
      .def_readonly("rows", &RankStats::rows)
      .def_readonly("busy_seconds", &RankStats::busy_seconds)
      .def_readonly("bytes_read", &RankStats::bytes_read)
      .def_readonly("bytes_written", &RankStats::bytes_written)
      .def_readonly("rows_shuffled_out", &RankStats::rows_shuffled_out)
      .def_readonly("rows_shuffled_in", &RankStats::rows_shuffled_in)
      .def_readonly("udf_batches_elsewhere", &RankStats::udf_batches_elsewhere);
  py::class_<QueryStats>(m, "QueryStats", "What a query reports about itself.")
      .def_readonly("udfs", &QueryStats::udfs)
      .def_readonly("wall_seconds", &QueryStats::wall_seconds)
      .def_readonly("rows_out", &QueryStats::rows_out)
      .def_readonly("ranks", &QueryStats::ranks)
      .def_readonly("resumed_partitions", &QueryStats::resumed_partitions)
      .def_readonly("resumed_rows", &QueryStats::resumed_rows)
      .def("__repr__", [](const QueryStats& s) {
        return "QueryStats(rows_out=" + std::to_string(s.rows_out) +
               ", wall_seconds=" + std::to_string(s.wall_seconds) +
               ", udfs=" + std::to_string(s.udfs.size()) + ")";
      });
  py::class_<QueryResult>(m, "QueryResult",
                          "What execute() and write_*() return: table, stats and rejected.")
      .def_readonly("table", &QueryResult::table, "The rows (empty for a write).")
      .def_readonly("stats", &QueryResult::stats, "The query's figures.")
      .def_readonly("rejected", &QueryResult::rejected,
                    "Rows a UDF under on_error='null' or 'skip' failed on: udf, error, and "
                    "the call's arguments.")
      .def("__repr__", [](const QueryResult& r) {
        return "QueryResult(rows=" + std::to_string(r.table.num_rows()) +
               ", rejected=" + std::to_string(r.rejected.num_rows()) + ")";
      });
}

}  // namespace

void bind_table(py::module_& m) {
  py::class_<Table>(m, "Table", R"doc(
Collected rows: what collect() returns. Columns by name with column(name); the whole table with
to_pydict(), to_pylist() or to_pandas(); repr() shows the first rows.)doc")
      .def_property_readonly("num_rows", &Table::num_rows, "Rows over all batches.")
      .def_property_readonly("num_columns", [](const Table& t) { return t.schema().num_fields(); })
      .def_property_readonly("schema", &Table::schema, "Column names and types.")
      .def_property_readonly("column_names",
                             [](const Table& t) {
                               std::vector<std::string> names;
                               for (const Field& f : t.schema().fields()) names.push_back(f.name);
                               return names;
                             })
      .def("__len__", &Table::num_rows)
      .def(
          "column",
          [](const Table& t, const std::string& name) {
            return Series{name, t.column(name)};
          },
          py::arg("name"), "The column `name` (all batches) as a Series.")
      .def("__getitem__",
           [](const Table& t, const std::string& name) {
             return Series{name, t.column(name)};
           })
      .def("to_pydict", &table_to_pydict, "{column name: list of values}.")
      .def("to_pylist", &table_to_pylist, "One dict per row.")
      .def("to_pandas", &table_to_pandas, "A pandas.DataFrame of the rows.")
      .def("to_string", &Table::to_string, py::arg("max_rows") = 20,
           "Aligned text of the first max_rows rows, with the row count below.")
      .def("__repr__", [](const Table& t) { return t.to_string(10); });
  bind_stats(m);
}

}  // namespace ember::python
