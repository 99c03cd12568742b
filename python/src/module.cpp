// The _ember extension module: the C++ engine as Python sees it. The `ember` package on top
// of it (ember/*.py) adds the Pythonic surface.
#include <pybind11/pybind11.h>

#include "bindings.h"
#include "python_function.h"
#include "series.h"

PYBIND11_MODULE(_ember, m) {
  m.doc() = "ember's native core; use the `ember` package.";
  ember::python::bind_errors(m);
  ember::python::bind_types(m);
  ember::python::bind_series(m);
  ember::python::bind_table(m);
  ember::python::bind_expr(m);
  ember::python::bind_session(m);
  ember::python::bind_dataframe(m);
  ember::python::bind_udf(m);
  ember::python::bind_arrow(m);
  ember::python::register_python_function_maker();
  m.attr("__version__") = ember::version();
}
