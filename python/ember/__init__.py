"""ember: a dataframe engine for batch inference and other heavy per-row work.

The engine is C++; this package is its Python API. A query is a lazy :class:`DataFrame`
(``ember.read_parquet(...)``, ``ember.range(n)``, ``ember.from_pydict({...})``) run by
``collect()`` or ``execute()``. A stateful UDF is a class decorated with :func:`ember.cls`: it
is constructed once per actor and reused for every batch. See docs/python.md.
"""

import os as _os
import sys as _sys

# RTLD_GLOBAL: a C++ UDF library loaded later (ember.load_udfs) registers its classes with this
# extension's copy of ember.
_flags = _sys.getdlopenflags()
_sys.setdlopenflags(_flags | _os.RTLD_GLOBAL)
try:
    from . import _ember
finally:
    _sys.setdlopenflags(_flags)

from ._ember import (  # noqa: E402,F401  (the public names)
    DataFrame,
    DataType,
    Error,
    Expr,
    Field,
    GroupedDataFrame,
    InvalidArgument,
    IoError,
    ParseError,
    QueryResult,
    QueryStats,
    RankStats,
    ResourceError,
    Schema,
    Series,
    Session,
    SessionStats,
    SessionUdfStats,
    Table,
    TypeError,
    Udf,
    UdfError,
    UdfStats,
    binary,
    boolean,
    cluster,
    coalesce,
    col,
    concat,
    cosine_similarity,
    date32,
    dot,
    fixed_size_list,
    float32,
    float64,
    from_arrow,
    from_pydict,
    from_table,
    int32,
    int64,
    l2_distance,
    lit,
    lit_date,
    lit_timestamp,
    list_,
    map_,
    null,
    range,
    read_arrow,
    read_csv,
    read_jsonl,
    read_parquet,
    schema,
    struct_,
    table_from_arrow,
    timestamp_us,
    utf8,
    when,
)
from . import expr_namespaces as _expr_namespaces  # noqa: E402,F401  (.str .list .dt)
from .native_udf import load_udfs, udf  # noqa: E402,F401
from .pandas_interop import from_pandas  # noqa: E402,F401
from .process_start import init  # noqa: E402,F401
from .python_udf import (  # noqa: E402,F401
    ActorContext,
    BoundUdf,
    ClassUdf,
    FunctionUdf,
    RetryAfter,
    actor_context,
    cls,
    fn,
)

__version__ = _ember.__version__
list = list_  # ember.list(ember.int64()) as in C++; builtins.list is not used below

from . import process_start as _process_start  # noqa: E402

_process_start.start_as_driver()
