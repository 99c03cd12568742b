"""ember.fn: plain Python functions as stateless UDFs, called inline on the pipeline threads."""
import gc
import weakref

import numpy as np
import pytest

import ember
from ember import col


def test_a_function_runs_on_every_batch_with_its_arguments():
    sizes = []

    @ember.fn(returns=ember.float64(), batch_size=300)
    def scaled(x, y):
        sizes.append(len(x))
        return x.to_numpy() * 2.5 + y.to_numpy()

    df = ember.range(2000, partitions=3).with_column("y", col("id") * 2)
    t = df.with_column("z", scaled(col("id"), "y")).where(col("z") > 100).collect()
    ids = np.array(t.column("id").to_numpy())
    assert t.to_pydict()["z"] == [i * 2.5 + 2 * i for i in ids.tolist()]
    assert ids.tolist() == [i for i in range(2000) if i * 4.5 > 100]
    assert sizes and max(sizes) <= 300 and sum(sizes) == 2000


def test_lists_and_strings_come_back_as_the_declared_type():
    @ember.fn(returns=ember.utf8())
    def shout(s):
        return [None if v is None else v.upper() + "!" for v in s.to_pylist()]

    df = ember.from_pydict({"s": ["a", None, "bc"]})
    assert df.with_column("t", shout("s")).collect().to_pydict()["t"] == ["A!", None, "BC!"]


def test_an_exception_fails_the_query_naming_the_function():
    @ember.fn(returns=ember.int64())
    def boom(x):
        raise ValueError("no good value here")

    with pytest.raises(ember.UdfError, match="udf 'boom'.*ValueError: no good value here"):
        ember.range(10).with_column("b", boom("id")).collect()

    @ember.fn(returns=ember.int64())
    def short(x):
        return [1]

    with pytest.raises(ember.UdfError, match="short"):
        ember.range(10).with_column("b", short("id")).collect()


def test_it_runs_beside_a_class_udf_on_thread_actors():
    @ember.cls(returns=ember.int64(), concurrency=2, batch_size=64)
    class Plus:
        def __init__(self, k):
            self.k = k

        def __call__(self, x):
            return x.to_numpy() + self.k

    @ember.fn(returns=ember.int64())
    def doubled(x):
        return x.to_numpy() * 2

    t = (ember.range(5000, partitions=4)
         .with_column("a", Plus(1)(col("id")))
         .with_column("b", doubled("a"))
         .collect())
    assert t.to_pydict()["b"] == [2 * (i + 1) for i in range(5000)]


def test_only_functions_are_taken_and_the_function_is_let_go():
    with pytest.raises(ember.InvalidArgument, match="decorates a function"):
        ember.fn(returns=ember.int64())(int)

    class Triple:
        def __call__(self, x):
            return x.to_numpy() * 3

    triple = Triple()
    gone = weakref.ref(triple)
    udf = ember.fn(returns=ember.int64(), name="triple")(triple)
    df = ember.range(100, partitions=2).with_column("t", udf("id"))
    assert df.collect().to_pydict()["t"] == [3 * i for i in range(100)]
    del triple, udf, df
    gc.collect()
    ember.range(1).collect()  # runs what engine threads left for the GIL, if anything
    assert gone() is None
