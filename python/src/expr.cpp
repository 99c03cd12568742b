// ember.Expr: column references, literals, operators (with Python scalars as literals),
// casts, aggregates and the function library. The .str/.dt/.list namespaces are added in
// ember/expr_namespaces.py over the prefixed methods bound here.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>

#include "bindings.h"
#include "ember/ember.h"
#include "python_values.h"

namespace ember::python {

namespace py = pybind11;

namespace {

/// An operand of a binary operator: an Expr, or a Python scalar as a literal (never a column).
Expr operand(py::handle o) { return to_expr(o, /*text_is_column=*/false); }

template <class F>
void binary(py::class_<Expr>& c, const char* name, const char* rname, F op) {
  c.def(
      name, [op](const Expr& a, py::object b) { return op(a, operand(b)); }, py::is_operator());
  if (rname != nullptr)
    c.def(
        rname, [op](const Expr& a, py::object b) { return op(operand(b), a); }, py::is_operator());
}

void bind_operators(py::class_<Expr>& c) {
  binary(c, "__add__", "__radd__", [](const Expr& a, const Expr& b) { return a + b; });
  binary(c, "__sub__", "__rsub__", [](const Expr& a, const Expr& b) { return a - b; });
  binary(c, "__mul__", "__rmul__", [](const Expr& a, const Expr& b) { return a * b; });
  binary(c, "__truediv__", "__rtruediv__", [](const Expr& a, const Expr& b) { return a / b; });
  binary(c, "__mod__", "__rmod__", [](const Expr& a, const Expr& b) { return a % b; });
  binary(c, "__eq__", nullptr, [](const Expr& a, const Expr& b) { return a == b; });
  binary(c, "__ne__", nullptr, [](const Expr& a, const Expr& b) { return a != b; });
  binary(c, "__lt__", nullptr, [](const Expr& a, const Expr& b) { return a < b; });
  binary(c, "__le__", nullptr, [](const Expr& a, const Expr& b) { return a <= b; });
  binary(c, "__gt__", nullptr, [](const Expr& a, const Expr& b) { return a > b; });
  binary(c, "__ge__", nullptr, [](const Expr& a, const Expr& b) { return a >= b; });
  binary(c, "__and__", "__rand__", [](const Expr& a, const Expr& b) { return a && b; });
  binary(c, "__or__", "__ror__", [](const Expr& a, const Expr& b) { return a || b; });
  c.def("__invert__", [](const Expr& a) { return !a; });
  c.def("__neg__", [](const Expr& a) { return -a; });
  c.def("__bool__", [](const Expr&) -> bool {
    throw py::type_error(
        "an ember.Expr has no truth value: combine conditions with & | ~ (not and/or/not), "
        "and write a < x & x < b as (a < x) & (x < b)");
  });
  c.attr("__hash__") = py::none();
}

void bind_methods(py::class_<Expr>& c) {
  c.def("alias", &Expr::alias, py::arg("name"), "Renames the result column.")
      .def("cast", &Expr::cast, py::arg("to"), "Converts to another DataType.")
      .def("is_null", &Expr::is_null, "True where the value is null.")
      .def("is_not_null", [](const Expr& e) { return !e.is_null(); })
      .def("sum", &Expr::sum, "Aggregate: sum of the non-null values.")
      .def("count", &Expr::count, "Aggregate: number of non-null values.")
      .def("min", &Expr::min, "Aggregate: smallest non-null value.")
      .def("max", &Expr::max, "Aggregate: largest non-null value.")
      .def("mean", &Expr::mean, "Aggregate: mean of the non-null values.")
      .def("count_distinct", &Expr::count_distinct, "Aggregate: distinct non-null values.")
      .def("first", &Expr::first, "Aggregate: the first value in input order.")
      .def("_list_agg", &Expr::list)
      .def(
          "fill_null", [](const Expr& e, py::object v) { return e.fill_null(operand(v)); },
          py::arg("value"), "This value, or `value` where it is null.")
      .def(
          "is_in",
          [](const Expr& e, py::iterable values) {
            std::vector<Value> vs;
            for (py::handle v : values) vs.push_back(to_value(v));
            return e.is_in(std::move(vs));
          },
          py::arg("values"), "Whether the value equals one of `values`.")
      .def(
          "between",
          [](const Expr& e, py::object lo, py::object hi) {
            return e.between(operand(lo), operand(hi));
          },
          py::arg("lo"), py::arg("hi"), "lo <= value <= hi.")
      .def("nullif", [](const Expr& e, py::object o) { return e.nullif(operand(o)); })
      .def("abs", &Expr::abs)
      .def("round", &Expr::round, py::arg("digits") = 0)
      .def("floor", &Expr::floor)
      .def("ceil", &Expr::ceil)
      .def("sqrt", &Expr::sqrt)
      .def("exp", &Expr::exp)
      .def("log", &Expr::log)
      .def("log10", &Expr::log10)
      .def("pow", [](const Expr& e, py::object x) { return e.pow(operand(x)); })
      .def("__pow__", [](const Expr& e, py::object x) { return e.pow(operand(x)); })
      .def("clip", [](const Expr& e, py::object lo,
                      py::object hi) { return e.clip(operand(lo), operand(hi)); })
      .def("sign", &Expr::sign)
      .def("hash", &Expr::hash, "A stable int64 hash (xxHash64), the same on every run.")
      .def("__str__", &Expr::to_string)
      .def("__repr__", [](const Expr& e) { return "Expr(" + e.to_string() + ")"; });
}

/// The prefixed methods behind the .str, .list and .dt namespaces.
void bind_namespaced(py::class_<Expr>& c) {
  c.def("_str_length", &Expr::str_length)
      .def("_str_lower", &Expr::str_lower)
      .def("_str_upper", &Expr::str_upper)
      .def("_str_contains", &Expr::str_contains)
      .def("_str_starts_with", &Expr::str_starts_with)
      .def("_str_ends_with", &Expr::str_ends_with)
      .def("_str_replace", &Expr::str_replace)
      .def("_str_split", &Expr::str_split)
      .def("_str_slice", &Expr::str_slice)
      .def("_str_strip", &Expr::str_strip)
      .def("_str_pad", &Expr::str_pad)
      .def("_str_match", &Expr::str_match)
      .def("_str_extract", &Expr::str_extract)
      .def("_str_replace_regex", &Expr::str_replace_regex)
      .def("field", &Expr::field, py::arg("name"),
           "Field `name` of each struct; null where the struct is null.")
      .def(
          "map_get", [](const Expr& e, py::object key) { return e.map_get(to_value(key)); },
          py::arg("key"), "The value under `key` in each map; null where there is none.")
      .def(
          "url_download",
          [](const Expr& e, int max_connections, const std::string& on_error) {
            DownloadOptions options;
            options.max_connections = max_connections;
            if (on_error == "null") {
              options.on_error = OnError::Null;
            } else if (on_error != "raise") {
              throw InvalidArgument("url_download: on_error='" + on_error +
                                    "': use 'raise' or 'null'");
            }
            return e.url_download(options);
          },
          py::arg("max_connections") = 32, py::arg("on_error") = "raise",
          "The bytes of the file each URL names (s3://, http(s)://, file://, a path) as binary; "
          "up to max_connections downloads at once per process. on_error='null' gives a null "
          "where a file cannot be had (listed in QueryResult.rejected); 'raise' fails the query "
          "with an IoError naming it.")
      .def("_list_size", &Expr::list_size)
      .def("_list_get", &Expr::list_get)
      .def("_list_contains",
           [](const Expr& e, py::object v) { return e.list_contains(to_value(v)); })
      .def("_list_sum", &Expr::list_sum)
      .def("_list_mean", &Expr::list_mean)
      .def("_list_min", &Expr::list_min)
      .def("_list_max", &Expr::list_max)
      .def("_list_slice", &Expr::list_slice)
      .def("_list_join", &Expr::list_join)
      .def("_list_sort", &Expr::list_sort)
      .def("_list_distinct", &Expr::list_distinct)
      .def("_dt_year", &Expr::dt_year)
      .def("_dt_month", &Expr::dt_month)
      .def("_dt_day", &Expr::dt_day)
      .def("_dt_hour", &Expr::dt_hour)
      .def("_dt_minute", &Expr::dt_minute)
      .def("_dt_second", &Expr::dt_second)
      .def("_dt_day_of_week", &Expr::dt_day_of_week)
      .def("_dt_truncate", &Expr::dt_truncate);
}

void bind_functions(py::module_& m) {
  m.def("col", &col, py::arg("name"), "A reference to the column `name`.");
  m.def(
      "lit", [](py::object v) { return lit(to_value(v)); }, py::arg("value"),
      "A constant: None, bool, int, float, str, bytes, datetime or a list.");
  m.def("_to_expr", [](py::object v, bool text_is_column) { return to_expr(v, text_is_column); });
  m.def(
      "concat", [](py::args parts) { return concat(to_exprs(parts, true)); },
      "The texts joined end to end (str arguments name columns).");
  m.def(
      "when",
      [](py::object cond, py::object then, py::object otherwise) {
        return when(to_expr(cond, true), operand(then), operand(otherwise));
      },
      py::arg("cond"), py::arg("then"), py::arg("otherwise"),
      "`then` where `cond` is true, else `otherwise`.");
  m.def(
      "coalesce", [](py::args values) { return coalesce(to_exprs(values, true)); },
      "The first non-null value (str arguments name columns).");
  m.def("lit_timestamp", &lit_timestamp, py::arg("iso8601"), "A timestamp constant.");
  m.def("lit_date", &lit_date, py::arg("iso8601"), "A date constant, from 'YYYY-MM-DD'.");
  m.def("cosine_similarity", [](py::object a, py::object b) {
    return cosine_similarity(to_expr(a, true), to_expr(b, true));
  });
  m.def("dot", [](py::object a, py::object b) { return dot(to_expr(a, true), to_expr(b, true)); });
  m.def("l2_distance",
        [](py::object a, py::object b) { return l2_distance(to_expr(a, true), to_expr(b, true)); });
}

}  // namespace

void bind_expr(py::module_& m) {
  py::class_<Expr> c(m, "Expr", R"doc(
An expression over a frame's columns: col("x"), lit(5), and operators between them, where a
Python value beside an expression is a literal (col("x") > 5, col("s") == "a"). Conditions
combine with & | ~. Text, list and time functions live under .str, .list and .dt.)doc");
  bind_operators(c);
  bind_methods(c);
  bind_namespaced(c);
  bind_functions(m);
}

}  // namespace ember::python
