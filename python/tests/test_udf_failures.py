"""Failures of Python UDFs: raising, timeouts, crashing workers, on_error and rejected rows."""

import pytest

import ember
from ember import col

from udf_classes import ExitOnce, FailOn, Sleepy


@pytest.mark.parametrize("isolation", ["thread", "process"])
def test_raising_fails_the_query_with_the_message(isolation):
    udf = ember.cls(returns=ember.int64(), isolation=isolation)(FailOn)
    with pytest.raises(ember.UdfError, match="cannot take 3"):
        ember.range(10).select(udf(3)("id")).collect()


@pytest.mark.parametrize("isolation", ["thread", "process"])
def test_on_error_null_and_skip_with_rejected(isolation):
    null = ember.cls(returns=ember.int64(), isolation=isolation, on_error="null",
                     batch_size=4)(FailOn)
    res = ember.range(10).select(col("id"), null(3)("id").alias("v")).execute()
    assert res.table.to_pydict()["v"] == [0, 1, 2, None, 4, 5, 6, 7, 8, 9]
    assert res.rejected.num_rows == 1
    row = res.rejected.to_pylist()[0]
    assert row["udf"] == "FailOn" and "cannot take 3" in row["error"]
    assert res.stats.udfs[0].failed_rows == 1

    skip = ember.cls(returns=ember.int64(), isolation=isolation, on_error="skip")(FailOn)
    res = ember.range(10).select(col("id"), skip(3)("id").alias("v")).execute()
    assert res.table.to_pydict()["id"] == [0, 1, 2, 4, 5, 6, 7, 8, 9]
    assert res.rejected.num_rows == 1


@pytest.mark.parametrize("isolation", ["thread", "process"])
def test_timeout(isolation):
    udf = ember.cls(returns=ember.int64(), isolation=isolation, timeout=0.3)(Sleepy)
    with pytest.raises(ember.UdfError, match="timed out|timeout|took longer"):
        ember.range(3).select(udf(30)("id")).collect()
    res = ember.range(3).select(
        ember.cls(returns=ember.int64(), isolation=isolation, timeout=0.3,
                  on_error="null")(Sleepy)(30)("id").alias("v")).execute()
    assert res.table.to_pydict()["v"] == [None, None, None]
    assert res.stats.udfs[0].timeouts >= 1


def test_crashing_worker_is_retried(tmp_path):
    udf = ember.cls(returns=ember.int64(), isolation="process", max_retries=2)(ExitOnce)
    res = ember.range(20).select(udf(str(tmp_path / "crashed"))("id").alias("id")).execute()
    assert res.table.to_pydict()["id"] == list(range(20))
    s = res.stats.udfs[0]
    assert s.retries >= 1 and s.inits == 2  # the dead worker was replaced once


def test_crashing_worker_without_retries_fails(tmp_path):
    udf = ember.cls(returns=ember.int64(), isolation="process")(ExitOnce)
    with pytest.raises(ember.UdfError, match="exited with status 7|status 7"):
        ember.range(20).select(udf(str(tmp_path / "crashed"))("id")).collect()


def test_retries_of_a_raising_call():
    @ember.cls(returns=ember.int64(), max_retries=3, retry_backoff=(0.001, 0.01))
    class Flaky:
        def __init__(self):
            self.calls = 0

        def __call__(self, x):
            self.calls += 1
            if self.calls < 3:
                raise OSError("try again")
            return x.to_numpy()

    res = ember.range(5).select(Flaky()("id")).execute()
    assert res.table.num_rows == 5 and res.stats.udfs[0].retries == 2
