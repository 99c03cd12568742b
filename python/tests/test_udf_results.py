"""A thread actor's NumPy result becomes its column's buffer without a copy, when nothing else
holds it; an array the UDF keeps is copied, so that writing into it again changes no output."""

import gc
import time
import weakref

import numpy as np

import ember
from ember import col


def address(a):
    return a.__array_interface__["data"][0]


class Doubled:
    made = []  # (address, weak reference) of every array returned

    def __call__(self, x):
        out = x.to_numpy() * 2.0
        Doubled.made.append((address(out), weakref.ref(out)))
        return out


class KeepsItsBuffer:
    def __call__(self, x):
        a = x.to_numpy()
        if getattr(self, "buf", None) is None or len(self.buf) != len(a):
            self.buf = np.empty(len(a))
        np.multiply(a, 2.0, out=self.buf)  # the same memory every batch
        return self.buf


class Embeds:
    made = []

    def __call__(self, x):
        out = np.repeat(x.to_numpy().astype(np.float32)[:, None], 4, axis=1)
        Embeds.made.append(address(out))
        return out


def test_a_fresh_result_is_the_columns_buffer():
    Doubled.made.clear()
    udf = ember.cls(Doubled, returns=ember.float64(), batch_size=1 << 20)
    t = ember.range(5000).select(udf()(col("id").cast(ember.float64())).alias("y")).collect()
    y = t.column("y").to_numpy()
    assert y.tolist() == [2.0 * i for i in range(5000)]
    assert len(Doubled.made) == 1
    assert address(y) == Doubled.made[0][0]  # the UDF's own array, not a copy


def test_an_embedding_result_is_shared_too():
    Embeds.made.clear()
    udf = ember.cls(Embeds, returns=ember.fixed_size_list(ember.float32(), 4), batch_size=1 << 20)
    t = ember.range(300).select(udf()(col("id")).alias("e")).collect()
    e = t.column("e").to_numpy()
    assert e.shape == (300, 4) and e[:, 3].tolist() == list(range(300))
    assert address(e) == Embeds.made[0]


def test_an_array_the_udf_keeps_and_writes_again_is_copied():
    udf = ember.cls(KeepsItsBuffer, returns=ember.float64(), batch_size=100)
    t = ember.range(1000).select(udf()(col("id").cast(ember.float64())).alias("y")).collect()
    assert t.column("y").to_pylist() == [2.0 * i for i in range(1000)]


def test_shared_results_are_let_go_of_once_the_engine_is_done():
    Doubled.made.clear()
    udf = ember.cls(Doubled, returns=ember.float64(), batch_size=1000)
    total = ember.range(200_000, partitions=4) \
        .select(udf()(col("id").cast(ember.float64())).alias("y")) \
        .agg(col("y").sum().alias("s")).collect().to_pydict()["s"][0]
    assert total == 2.0 * sum(range(200_000))
    assert len(Doubled.made) == 200
    # Engine threads hand the arrays back to Python without waiting for the GIL; Python's
    # main thread lets go of them at its next pending-call check.
    deadline = time.monotonic() + 5
    while any(ref() is not None for _, ref in Doubled.made) and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.01)
    assert [ref() for _, ref in Doubled.made if ref() is not None] == []
