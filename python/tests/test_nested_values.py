"""Struct and map columns in Python: a struct value is a dict {field: value}, a map value a list
of (key, value) tuples (as pyarrow's to_pylist gives them); both convert back into columns, and
cross files (Arrow IPC) with their values intact."""

import pytest

import ember

POINT = ember.struct_([("x", ember.int64()), ("label", ember.utf8()),
                       ("tags", ember.list_(ember.utf8()))])
POINTS = [
    {"x": 1, "label": "a", "tags": ["p", "q"]},
    None,
    {"x": None, "label": "c", "tags": []},
    {"x": -4, "label": None, "tags": None},
]
ATTRS = ember.map_(ember.utf8(), ember.struct_([("w", ember.float64())]))
ATTR_ROWS = [
    [("k1", {"w": 0.5}), ("k2", None)],
    None,
    [],
    [("only", {"w": None})],
]


def test_a_struct_column_round_trips_through_to_pylist():
    s = ember.Series(POINTS, type=POINT)
    assert s.type == POINT and s.null_count == 1
    assert s.to_pylist() == POINTS
    assert s[0] == POINTS[0] and s[1] is None
    # Back from its own Python values, and from dicts whose keys come in any order or are
    # missing (a missing field is null).
    assert ember.Series(s.to_pylist(), type=POINT).to_pylist() == POINTS
    shuffled = [{"tags": ["t"], "x": 7}, {"label": "z"}]
    assert ember.Series(shuffled, type=POINT).to_pylist() == [
        {"x": 7, "label": None, "tags": ["t"]}, {"x": None, "label": "z", "tags": None}]


def test_a_struct_type_is_inferred_from_dicts():
    rows = [{"a": 1, "b": None}, None, {"b": "text", "a": 2.5}]
    t = ember.from_pydict({"s": rows}).collect()
    assert t.schema["s"] == ember.struct_([("a", ember.float64()), ("b", ember.utf8())])
    assert t.to_pydict()["s"] == [{"a": 1.0, "b": None}, None, {"a": 2.5, "b": "text"}]


def test_a_map_column_round_trips_as_key_value_tuples():
    s = ember.Series(ATTR_ROWS, type=ATTRS)
    assert s.type == ATTRS
    got = s.to_pylist()
    assert got == ATTR_ROWS
    assert all(isinstance(pair, tuple) for row in got if row for pair in row)
    # A dict is a map value too, its items the entries in order.
    assert ember.Series([{"a": {"w": 1.0}, "b": None}], type=ATTRS).to_pylist() == [
        [("a", {"w": 1.0}), ("b", None)]]


def test_nested_values_that_do_not_fit_are_clear_errors():
    with pytest.raises(ember.InvalidArgument, match="has no field 'y'"):
        ember.Series([{"x": 1, "y": 2}], type=POINT)
    with pytest.raises(ember.InvalidArgument, match="is a dict of its fields; got a list"):
        ember.Series([[1, "a", []]], type=POINT)
    with pytest.raises(ember.InvalidArgument, match=r"entry is a \(key, value\) pair"):
        ember.Series([[("k", {"w": 1.0}, "extra")]], type=ATTRS)
    with pytest.raises(ember.InvalidArgument, match="key cannot be None"):
        ember.Series([[(None, {"w": 1.0})]], type=ATTRS)


def test_struct_and_map_columns_cross_arrow_ipc_files(tmp_path):
    df = ember.from_pydict({
        "id": [0, 1, 2, 3],
        "point": ember.Series(POINTS, type=POINT),
        "attrs": ember.Series(ATTR_ROWS, type=ATTRS),
    }, partitions=2)
    df.write_arrow(str(tmp_path / "out"))
    back = ember.read_arrow(str(tmp_path / "out" / "*.arrow")).sort("id").collect()
    assert back.schema["point"] == POINT and back.schema["attrs"] == ATTRS
    assert back.to_pydict() == {"id": [0, 1, 2, 3], "point": POINTS, "attrs": ATTR_ROWS}


def test_field_and_map_get_read_inside_nested_columns(tmp_path):
    df = ember.from_pydict({"p": ember.Series(POINTS, type=POINT),
                            "m": ember.Series(ATTR_ROWS, type=ATTRS)})
    out = df.select(ember.col("p").field("label").alias("label"),
                    ember.col("m").map_get("k1").alias("k1")).collect().to_pydict()
    assert out["label"] == ["a", None, "c", None]
    assert out["k1"] == [{"w": 0.5}, None, None, None]
    # Through a Parquet file and back: the nested columns keep every value.
    df.write_parquet(str(tmp_path / "nested"))
    back = ember.read_parquet(str(tmp_path / "nested" / "*.parquet")).collect().to_pydict()
    assert back["p"] == POINTS and back["m"] == ATTR_ROWS
    with pytest.raises(ember.TypeError, match="its fields: x, label, tags"):
        df.select(ember.col("p").field("nope")).collect()
