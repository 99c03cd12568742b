"""ember's errors are Python exceptions of the same names, subclasses of ember.Error."""

import pytest

import ember
from ember import col


def test_hierarchy():
    for name in ("ResourceError", "UdfError", "IoError", "ParseError", "TypeError",
                 "InvalidArgument"):
        assert issubclass(getattr(ember, name), ember.Error)
    assert issubclass(ember.TypeError, TypeError)
    assert issubclass(ember.InvalidArgument, ValueError)


def test_io_error_with_message(tmp_path):
    with pytest.raises(ember.IoError) as e:
        ember.read_parquet(str(tmp_path / "missing.parquet")).collect()
    assert "missing.parquet" in str(e.value)


def test_parse_error(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"a": 1}\n{"a": \n')
    with pytest.raises(ember.ParseError, match="bad.jsonl"):
        ember.read_jsonl(str(bad)).collect()


def test_type_error():
    with pytest.raises(ember.TypeError):
        ember.range(3).where(col("id") + 1).collect()


def test_invalid_argument():
    with pytest.raises(ember.InvalidArgument):
        ember.range(3).limit(-1)
    with pytest.raises(ember.InvalidArgument, match="unknown run option"):
        ember.range(3).collect(nope=1)


def test_resource_error_before_any_work():
    @ember.cls(returns=ember.int64(), num_cpus=10000)
    class Greedy:
        def __call__(self, x):
            return x

    with pytest.raises(ember.ResourceError, match="cpu|CPU"):
        ember.range(3).select(Greedy()("id")).collect()
