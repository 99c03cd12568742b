"""Python UDF classes on process actors: each actor a worker process with its own interpreter."""

import os

import numpy as np
import pytest

import ember
from ember import col

from udf_classes import AddOne, Embed, WhoAmI
from conftest import child_pids


def test_process_actors_are_other_processes_one_per_actor():
    udf = ember.cls(returns=ember.int64(), concurrency=2, isolation="process",
                    batch_size=50)(WhoAmI)
    res = ember.range(1000, partitions=4).select(udf()("id").alias("pid")).execute()
    pids = set(res.table.column("pid").to_pylist())
    assert os.getpid() not in pids
    assert 1 <= len(pids) <= 2
    s = res.stats.udfs[0]
    assert s.actors == 2 and s.inits == 2 and s.rows == 1000
    assert child_pids() == []  # the workers are gone with the query


def test_process_results_match_and_zero_copy_arguments():
    udf = ember.cls(returns=ember.int64(), concurrency=2, isolation="process")(AddOne)
    t = ember.range(5000, partitions=3).select(udf(step=7)("id").alias("id")).collect()
    assert t.column("id").to_numpy().tolist() == [i + 7 for i in range(5000)]


def test_class_defined_in_a_script_main(run_python):
    r = run_python("""
import ember, os
from ember import col

@ember.cls(returns=ember.utf8(), concurrency=2, isolation="process")
class Tag:
    def __init__(self, prefix):
        self.prefix = prefix
        print("init in", "worker" if os.getpid() != DRIVER else "driver", flush=True)
    def __call__(self, x):
        return [self.prefix + str(v) for v in x.to_pylist()]

DRIVER = os.getpid()
if __name__ == "__main__":
    res = ember.range(10, partitions=2).select(Tag("n")(col("id")).alias("t")).execute()
    print(res.table.to_pydict()["t"])
    print("inits", res.stats.udfs[0].inits)
""")
    assert r.returncode == 0, r.stderr
    assert "['n0', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7', 'n8', 'n9']" in r.stdout
    assert "inits 2" in r.stdout


def test_process_embedding():
    udf = ember.cls(returns=ember.fixed_size_list(ember.float32(), 3), isolation="process")(Embed)
    e = ember.range(10).select(udf(3)("id").alias("e")).collect().column("e").to_numpy()
    assert e.shape == (10, 3) and np.allclose(e[:, 2], np.arange(10) * 2)


def test_constructor_failure_is_a_udf_error():
    @ember.cls(returns=ember.int64(), isolation="process")
    class Broken:
        def __init__(self):
            raise RuntimeError("no model here")

        def __call__(self, x):
            return x

    with pytest.raises(ember.UdfError, match="no model here"):
        ember.range(3).select(Broken()("id")).collect()
