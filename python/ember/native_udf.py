"""C++ UDF classes from Python: ember.load_udfs and ember.udf."""

import os

from . import _ember, process_start


def load_udfs(path: str) -> None:
    """Loads a shared library whose C++ UDF classes are registered with
    ``EMBER_REGISTER_UDF`` (build it against ember's headers, leaving ember's symbols
    undefined: they resolve to this package's). Worker processes load it too.
    Raises ember.IoError when it cannot be loaded."""
    path = os.path.abspath(path)
    _ember._load_udf_library(path)
    process_start.note_library(path)


def udf(class_name: str, *, returns, init_args=None, name=None, library=None,
        **settings) -> _ember.Udf:
    """A registered C++ UDF class as an ember.Udf: call it on expressions.

    class_name: the name given to EMBER_REGISTER_UDF (e.g. "spellcheck::Speller").
    returns: the ember.DataType of its result column.
    init_args: {str: None | bool | int | float | str}, what each actor's constructor gets.
    name: the UDF's name in stats (default: class_name).
    library: a shared library to load where the class is not registered yet.
    settings: as ember.cls: batch_size, concurrency, num_cpus, num_gpus, memory_bytes,
    isolation, max_retries, on_error, timeout (seconds), max_concurrency.
    """
    if library is not None:
        library = os.path.abspath(library)
        if not _ember._registered(class_name):
            load_udfs(library)
    elif not _ember._registered(class_name):
        raise _ember.InvalidArgument(
            "no UDF class '%s' is registered: load its library with ember.load_udfs(path)"
            % class_name)
    return _ember._native_udf(name or class_name, class_name, library or "",
                              dict(init_args or {}), returns=returns, **settings)
