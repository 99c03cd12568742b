"""Python UDF actors: what each knows about itself (ember.actor_context()), ember.RetryAfter,
and autoscaling pools."""

import time

import pytest

import ember


@pytest.mark.parametrize("isolation", ["thread", "process"])
def test_each_actor_sees_its_own_context_in_init_and_call(isolation):
    @ember.cls(returns=ember.int64(), concurrency=2, num_cpus=0.5, memory_bytes=1 << 20,
               isolation=isolation, batch_size=10)
    class WhoAmI:
        def __init__(self):
            ctx = ember.actor_context()
            assert isinstance(ctx, ember.ActorContext)
            assert ctx.num_cpus == 0.5 and ctx.memory_bytes == 1 << 20 and ctx.gpu_ids == ()
            self.id = ctx.actor_id

        def __call__(self, x):
            assert ember.actor_context().actor_id == self.id
            return [self.id] * len(x)

    res = ember.range(400, partitions=8).select(WhoAmI()("id").alias("actor")).execute()
    ids = set(res.table.to_pydict()["actor"])
    assert ids <= {0, 1} and ids  # each row says which actor ran it
    assert res.stats.udfs[0].inits == 2
    assert "actor_id=" in repr(ember.ActorContext(1, (0,), 1.0, 0))


def test_actor_context_outside_a_udf_is_an_error():
    with pytest.raises(ember.InvalidArgument, match="only available inside a UDF"):
        ember.actor_context()


@pytest.mark.parametrize("isolation", ["thread", "process"])
def test_retry_after_runs_the_batch_again_after_the_wait(isolation):
    @ember.cls(returns=ember.int64(), isolation=isolation, max_retries=3,
               retry_backoff=(30.0, 30.0))
    class RateLimited:
        def __init__(self):
            self.calls = 0

        def __call__(self, x):
            self.calls += 1
            if self.calls < 3:
                raise ember.RetryAfter(0.2, "rate limited")
            return x.to_numpy() * 2

    start = time.monotonic()
    res = ember.range(5).select(RateLimited()("id").alias("v")).execute()
    elapsed = time.monotonic() - start
    assert res.table.to_pydict()["v"] == [0, 2, 4, 6, 8]
    assert res.stats.udfs[0].retries == 2
    # The RetryAfter's 0.2 s replaced retry_backoff's 30 s, twice.
    assert 0.4 <= elapsed < 20


def test_retry_after_past_max_retries_fails_with_its_message():
    @ember.cls(returns=ember.int64(), max_retries=1)
    class AlwaysBusy:
        def __call__(self, x):
            raise ember.RetryAfter(0.01, "the service is busy")

    with pytest.raises(ember.UdfError, match="the service is busy"):
        ember.range(3).select(AlwaysBusy()("id")).collect()
    with pytest.raises(ember.InvalidArgument):
        ember.RetryAfter(-1)
    assert issubclass(ember.RetryAfter, ember.UdfError)


@pytest.mark.parametrize("isolation", ["thread", "process"])
def test_an_autoscaling_pool_grows_into_free_cpus(isolation):
    """concurrency=(1, 4): one actor reserved, grown to four while batches queue (8 CPUs
    declared free), each growth one more construction."""
    @ember.cls(returns=ember.int64(), concurrency=(1, 4), num_cpus=1, batch_size=10,
               isolation=isolation)
    class Slow:
        def __call__(self, x):
            import time
            time.sleep(0.01)
            return x.to_numpy()

    res = ember.range(3000, partitions=8).select(Slow()("id").alias("v")).execute(
        resources={"cpus": 8, "memory_bytes": 4 << 30})
    assert res.table.to_pydict()["v"] == list(range(3000))
    s = res.stats.udfs[0]
    assert s.actors == 1 and s.peak_actors == 4 and s.scale_ups == 3 and s.inits == 4
