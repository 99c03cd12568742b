"""Tables and Series: conversions to Python, NumPy (zero-copy) and pandas."""

import datetime

import numpy as np
import pytest

import ember
from ember import col


def test_to_numpy_is_a_view_of_the_column_buffer():
    t = ember.range(1000).with_column("x", col("id").cast(ember.float64()) * 0.5).collect()
    s = t.column("x")
    a = s.to_numpy()
    b = s.to_numpy()
    assert a.dtype == np.float64 and a.shape == (1000,)
    # Both arrays point at the same bytes: the column's buffer, not two copies.
    assert a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
    assert not a.flags.owndata and not a.flags.writeable
    assert a[10] == 5.0
    assert np.shares_memory(a, s.to_numpy(zero_copy_only=True))


def test_zero_copy_view_survives_the_table():
    a = ember.range(50).collect().column("id").to_numpy()
    import gc
    gc.collect()
    assert a.sum() == sum(range(50))


def test_to_numpy_copies_when_it_must():
    s = ember.from_pydict({"i": [1, None, 3]}).collect().column("i")
    a = s.to_numpy()
    assert np.isnan(a[1]) and a[2] == 3.0
    with pytest.raises(ember.InvalidArgument, match="zero-copy"):
        s.to_numpy(zero_copy_only=True)
    strings = ember.from_pydict({"s": ["a", "b"]}).collect().column("s").to_numpy()
    assert strings.dtype == object and list(strings) == ["a", "b"]


def test_series_basics():
    s = ember.from_pydict({"s": ["a", None, "c"]}).collect().column("s")
    assert len(s) == 3 and s.type == ember.utf8() and s.null_count == 1
    assert s.to_pylist() == ["a", None, "c"]
    assert s[0] == "a" and s[-1] == "c"
    assert "Series('s', utf8, 3 rows" in repr(s)


def test_to_pydict_pylist_pandas():
    t = ember.from_pydict({"a": [1, 2], "b": ["x", None]}).collect()
    assert t.to_pylist() == [{"a": 1, "b": "x"}, {"a": 2, "b": None}]
    pdf = t.to_pandas()
    assert list(pdf.columns) == ["a", "b"]
    assert pdf["a"].tolist() == [1, 2]
    assert pdf["b"].tolist() == ["x", None]
    back = ember.from_pandas(pdf).collect().to_pydict()
    assert back == {"a": [1, 2], "b": ["x", None]}


def test_numpy_in_from_pydict_and_fixed_size_lists():
    emb = np.arange(12, dtype=np.float32).reshape(4, 3)
    t = ember.from_pydict({"id": np.arange(4), "emb": emb}).collect()
    assert t.schema["emb"] == ember.fixed_size_list(ember.float32(), 3)
    out = t.column("emb").to_numpy()
    assert out.shape == (4, 3) and out.dtype == np.float32
    assert (out == emb).all()


def test_timestamps():
    when = datetime.datetime(2024, 5, 6, 7, 8, 9)
    t = ember.from_pydict({"t": [when, None]}).collect()
    assert t.schema["t"] == ember.timestamp_us()
    assert t.to_pydict()["t"] == [when, None]


def test_dates():
    day = datetime.date(2024, 2, 29)
    t = ember.from_pydict({"d": [day, None, datetime.date(1969, 12, 31)]}).collect()
    assert t.schema["d"] == ember.date32()
    assert t.to_pydict()["d"] == [day, None, datetime.date(1969, 12, 31)]
    later = (
        ember.from_table(t)
        .where(ember.col("d") >= ember.lit_date("2000-01-01"))
        .with_column("next", ember.col("d") + 1)
        .collect()
    )
    assert later.to_pydict()["next"] == [datetime.date(2024, 3, 1)]
    # Through the Arrow C stream and back: Arrow's date32 ("tdD").
    again = ember.from_arrow(t)
    assert again.collect().to_pydict()["d"] == t.to_pydict()["d"]


def test_table_repr_shows_rows():
    t = ember.range(30).collect()
    text = repr(t)
    assert "id" in text and "30 rows" in text
