"""C++ UDF classes from a shared library: ember.load_udfs and ember.udf."""

import os

import pytest

import ember
from ember import col

LIBRARY = os.environ.get("EMBER_TEST_UDF_LIBRARY") or os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "..", "build", "python",
    "libtest_udfs.so")


@pytest.fixture(scope="module", autouse=True)
def loaded():
    ember.load_udfs(LIBRARY)


def test_native_udf_on_threads():
    add = ember.udf("native_test::AddOffset", returns=ember.int64(), init_args={"offset": 100},
                    concurrency=2, name="add")
    res = ember.range(1000, partitions=3).select(add(col("id")).alias("y")).execute()
    assert res.table.column("y").to_pylist() == [i + 100 for i in range(1000)]
    assert res.stats.udfs[0].name == "add" and res.stats.udfs[0].inits == 2


def test_native_udf_in_worker_processes():
    pid = ember.udf("native_test::ProcessId", returns=ember.int64(), isolation="process",
                    concurrency=2)
    pids = set(ember.range(100, partitions=2).select(pid("id")).collect().to_pydict()
               .popitem()[1])
    assert os.getpid() not in pids and len(pids) >= 1


def test_unknown_class_and_library():
    with pytest.raises(ember.InvalidArgument, match="load_udfs"):
        ember.udf("no::Such", returns=ember.int64())
    with pytest.raises(ember.IoError, match="cannot load"):
        ember.load_udfs("/nonexistent/libnothing.so")
