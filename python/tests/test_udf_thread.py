"""Python UDF classes on thread actors: construction once per actor, batches, settings."""

import threading

import numpy as np
import pytest

import ember
from ember import col

import udf_classes
from udf_classes import AddOne, Embed, WhoAmI


def test_calling_the_class_constructs_nothing():
    udf = ember.cls(returns=ember.int64())(AddOne)
    before = udf_classes.INITS.get("AddOne", 0)
    bound = udf(step=2)
    expr = bound(col("id"))
    assert isinstance(bound, ember.BoundUdf) and isinstance(expr, ember.Expr)
    assert udf_classes.INITS.get("AddOne", 0) == before


def test_one_construction_per_actor_across_partitions():
    udf = ember.cls(returns=ember.int64(), concurrency=3, batch_size=10)(AddOne)
    before = udf_classes.INITS.get("AddOne", 0)
    res = ember.range(1000, partitions=8).with_column("y", udf(step=5)("id")).execute()
    assert res.table.column("y").to_pylist() == [i + 5 for i in range(1000)]
    s = res.stats.udfs[0]
    assert s.name == "AddOne" and s.actors == 3 and s.inits == 3
    assert s.batches >= 100 and s.rows == 1000
    assert udf_classes.INITS["AddOne"] - before == 3


def test_decorator_on_a_class_defined_here_and_returns_list():
    @ember.cls(returns=ember.utf8(), batch_size=7)
    class Shout:
        def __init__(self, suffix):
            self.suffix = suffix

        def __call__(self, s):
            assert len(s) <= 7
            return [None if v is None else v.upper() + self.suffix for v in s.to_pylist()]

    df = ember.from_pydict({"s": ["a", None, "c"] * 10})
    t = df.select(Shout("!")(col("s")).alias("u")).collect()
    assert t.to_pydict()["u"] == ["A!", None, "C!"] * 10


def test_several_arguments_and_series_result():
    @ember.cls(returns=ember.float64())
    class Weighted:
        def __init__(self, w):
            self.w = w

        def __call__(self, a, b):
            assert a.name == "a" and b.name == "b"
            return ember.Series(a.to_numpy() * self.w + b.to_numpy(), type=ember.float64())

    df = ember.from_pydict({"a": [1.0, 2.0], "b": [10.0, 20.0]})
    assert df.select(Weighted(w=3)("a", "b").alias("r")).collect().to_pydict() == {
        "r": [13.0, 26.0]}


def test_embedding_as_fixed_size_list():
    udf = ember.cls(returns=ember.fixed_size_list(ember.float32(), 4), batch_size=16)(Embed)
    t = ember.range(40).select(udf(4)(col("id")).alias("e")).collect()
    assert t.schema["e"] == ember.fixed_size_list(ember.float32(), 4)
    e = t.column("e").to_numpy()
    assert e.shape == (40, 4) and e[3].tolist() == [0.0, 3.0, 6.0, 9.0]


def test_thread_actors_run_in_this_process():
    import os
    udf = ember.cls(returns=ember.int64(), concurrency=2)(WhoAmI)
    pids = set(ember.range(100, partitions=4).select(udf()("id")).collect().to_pydict()
               .popitem()[1])
    assert pids == {os.getpid()}


def test_engine_does_not_hold_the_gil():
    # While a query runs, another Python thread keeps running.
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(1)
            stop.wait(0.005)

    t = threading.Thread(target=ticker)
    t.start()
    try:
        @ember.cls(returns=ember.int64(), batch_size=100)
        class Slow:
            def __call__(self, x):
                import time
                time.sleep(0.02)
                return x.to_numpy()

        ember.range(1000).select(Slow()("id")).collect()
    finally:
        stop.set()
        t.join()
    assert len(ticks) > 10


def test_bad_return_is_a_udf_error():
    @ember.cls(returns=ember.int64())
    class Short:
        def __call__(self, x):
            return [1]

    with pytest.raises(ember.UdfError, match="returned 1 rows"):
        ember.range(5).select(Short()("id")).collect()


def test_settings_are_validated_at_decoration():
    with pytest.raises(ember.InvalidArgument):
        ember.cls(returns=ember.int64(), concurrency=0)(AddOne)
    with pytest.raises(ember.InvalidArgument, match="isolation"):
        ember.cls(returns=ember.int64(), isolation="fiber")(AddOne)
    with pytest.raises(ember.InvalidArgument, match="on_error"):
        ember.cls(returns=ember.int64(), on_error="ignore")(AddOne)


def test_every_setting_is_accepted():
    udf = ember.cls(returns=ember.int64(), batch_size=64, concurrency=(1, 2), num_cpus=0.5,
                    num_gpus=0, memory_bytes=1 << 20, isolation="thread", max_retries=1,
                    on_error="null", timeout=30, max_concurrency=2, max_failed_rows=10,
                    retry_backoff=(0.01, 0.1))(AddOne)
    res = ember.range(500, partitions=2).select(udf()("id").alias("id")).execute()
    assert res.table.column("id").to_pylist() == [i + 1 for i in range(500)]
    s = res.stats.udfs[0]
    assert s.held_memory_bytes >= 1 << 20 and s.held_cpus >= 0.5
    assert 1 <= s.inits <= 2


def test_session_keeps_actors_warm():
    udf = ember.cls(returns=ember.int64(), concurrency=2)(AddOne)
    bound = udf()
    with ember.Session() as session:
        inits = [ember.range(100, partitions=2).select(bound("id")).execute(session=session)
                 .stats.udfs[0].inits for _ in range(3)]
        st = session.stats()
    assert inits[0] == 2 and inits[1:] == [0, 0]
    assert st.reuses == 2 and st.inits == 2


def test_unpicklable_init_args_work_on_threads():
    lock = threading.Lock()  # cannot be pickled
    udf = ember.cls(returns=ember.int64())(AddOne)
    t = ember.range(3).select(udf(step=1 if lock else 0)("id").alias("id")).collect()
    assert t.to_pydict()["id"] == [1, 2, 3]

    @ember.cls(returns=ember.int64())
    class HoldsLock:
        def __init__(self, lock):
            self.lock = lock

        def __call__(self, x):
            with self.lock:
                return x.to_numpy()

    assert ember.range(3).select(HoldsLock(lock)("id")).collect().num_rows == 3
    proc = HoldsLock.options(isolation="process")
    with pytest.raises(ember.InvalidArgument, match="cloudpickle"):
        proc(lock)("id")


class _CountsPickling:
    """Stands for a large global a UDF class refers to (a loaded model): counts its pickling."""

    pickled = 0

    def __reduce__(self):
        type(self).pickled += 1
        return (_CountsPickling, ())


_MODEL = _CountsPickling()


def test_a_thread_udf_is_not_pickled_on_one_machine():
    # A class in __main__ (as in a script or a notebook) is pickled by value, with the globals
    # it names: thread actors of this process need none of it.
    class UsesModel:
        def __call__(self, x):
            assert _MODEL is not None
            return x.to_numpy()

    UsesModel.__module__ = "__main__"
    _CountsPickling.pickled = 0
    udf = ember.cls(returns=ember.int64())(UsesModel)
    assert ember.range(5).select(udf()("id").alias("id")).collect().num_rows == 5
    assert _CountsPickling.pickled == 0
    # The engine's Udf holds what its actors construct from, and only while it lives.
    import gc
    import weakref
    from ember import python_udf
    expr = udf()("id")
    gc.collect()
    binding = weakref.ref(python_udf._registry[max(python_udf._registry.keys())])
    assert binding() is not None
    assert ember.range(2).select(expr.alias("id")).collect().num_rows == 2
    del expr
    gc.collect()
    assert binding() is None
    # A process actor does need it (shipped to its worker).
    try:
        udf.options(isolation="process")()("id")
    except ember.InvalidArgument:
        pass  # a class defined in a test function need not unpickle in a worker
    assert _CountsPickling.pickled == 1


def test_numpy_udf_over_float64_is_vectorised():
    @ember.cls(returns=ember.float64(), batch_size=4096)
    class Scale:
        def __call__(self, x):
            return np.sqrt(x.to_numpy()) * 2.0

    df = ember.range(20000).with_column("x", col("id").cast(ember.float64()))
    out = df.select(Scale()("x").alias("y")).collect().column("y").to_numpy()
    assert np.allclose(out, np.sqrt(np.arange(20000.0)) * 2.0)
