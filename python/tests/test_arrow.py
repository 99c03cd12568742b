"""The Arrow PyCapsule interface: __arrow_c_stream__ on Table and DataFrame, ember.from_arrow,
and the exported C structs read field by field with ctypes (as any consumer reads them)."""

import ctypes
import os
import datetime

import numpy as np
import pytest

import ember
from ember import col


class ArrowSchema(ctypes.Structure):
    pass


ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p), ("name", ctypes.c_char_p), ("metadata", ctypes.c_char_p),
    ("flags", ctypes.c_int64), ("n_children", ctypes.c_int64),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowSchema))),
    ("dictionary", ctypes.POINTER(ArrowSchema)), ("release", ctypes.c_void_p),
    ("private_data", ctypes.c_void_p)]


class ArrowArray(ctypes.Structure):
    pass


ArrowArray._fields_ = [
    ("length", ctypes.c_int64), ("null_count", ctypes.c_int64), ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64), ("n_children", ctypes.c_int64),
    ("buffers", ctypes.POINTER(ctypes.c_void_p)),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowArray))),
    ("dictionary", ctypes.POINTER(ArrowArray)),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))),
    ("private_data", ctypes.c_void_p)]


class ArrowArrayStream(ctypes.Structure):
    _fields_ = [
        ("get_schema", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ArrowSchema))),
        ("get_next", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ArrowArray))),
        ("get_last_error", ctypes.c_void_p), ("release", ctypes.c_void_p),
        ("private_data", ctypes.c_void_p)]


def stream_of(capsule):
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return ctypes.cast(get(capsule, b"arrow_array_stream"), ctypes.POINTER(ArrowArrayStream))


SAMPLE = {
    "i": [1, None, 3, 4],
    "f": [0.5, 1.5, None, 3.5],
    "s": ["a", "bb", None, "dddd"],
    "b": [True, None, False, True],
    "t": [datetime.datetime(2024, 1, 1), None, datetime.datetime(1970, 1, 1, 0, 0, 1),
          datetime.datetime(2000, 2, 29)],
    "l": [[1, 2], None, [], [3]],
    "raw": [b"\x00\x01", b"", None, b"z"],
}


def test_round_trip_through_the_capsule():
    t = ember.from_pydict(SAMPLE, partitions=2).collect()
    back = ember.from_arrow(t).collect()
    assert back.schema == t.schema
    assert back.to_pydict() == SAMPLE
    assert ember.table_from_arrow(t.__arrow_c_stream__()).to_pydict() == SAMPLE


def test_from_arrow_borrows_buffers_already_in_embers_layout():
    # ember exports 64-byte aligned, zero-padded buffers: coming back in, they are not copied,
    # and the imported table keeps the exported one's memory alive on its own.
    t = ember.from_pydict({"x": np.arange(1000, dtype=np.float64)}).collect()
    before = t.column("x").to_numpy().__array_interface__["data"][0]
    back = ember.table_from_arrow(t.__arrow_c_stream__())
    del t
    x = back.column("x").to_numpy()
    assert x.__array_interface__["data"][0] == before
    assert x.tolist() == list(range(1000))


def test_dataframe_has_the_interface_and_slices_survive():
    df = ember.range(100, partitions=3).where(col("id") % 7 == 3).with_column(
        "e", col("id").cast(ember.float32()))
    back = ember.from_arrow(df).collect().to_pydict()
    assert back["id"] == [i for i in range(100) if i % 7 == 3]
    emb = np.arange(12, dtype=np.float32).reshape(6, 2)
    t = ember.from_pydict({"v": emb}).limit(5).collect()
    assert ember.from_arrow(t).collect().column("v").to_numpy().tolist() == emb[:5].tolist()


def test_exported_structs_read_with_ctypes():
    t = ember.from_pydict({"id": [10, 20, 30], "s": ["x", None, "zz"]}).collect()
    capsule = t.__arrow_c_stream__()
    s = stream_of(capsule)
    schema = ArrowSchema()
    assert s.contents.get_schema(s, ctypes.byref(schema)) == 0
    assert schema.format == b"+s" and schema.n_children == 2
    assert [schema.children[i].contents.format for i in range(2)] == [b"l", b"u"]
    assert [schema.children[i].contents.name for i in range(2)] == [b"id", b"s"]
    array = ArrowArray()
    assert s.contents.get_next(s, ctypes.byref(array)) == 0
    assert array.length == 3 and array.n_children == 2
    ids = array.children[0].contents
    values = ctypes.cast(ids.buffers[1], ctypes.POINTER(ctypes.c_int64))
    assert [values[ids.offset + i] for i in range(3)] == [10, 20, 30]
    # The id buffer is the column's own: the same address NumPy's zero-copy view has.
    assert ids.buffers[1] + 8 * ids.offset == \
        t.column("id").to_numpy().__array_interface__["data"][0]
    strings = array.children[1].contents
    assert strings.null_count == 1 and strings.n_buffers == 3
    offsets = ctypes.cast(strings.buffers[1], ctypes.POINTER(ctypes.c_int32))
    chars = ctypes.cast(strings.buffers[2], ctypes.c_char_p)
    o = [offsets[strings.offset + i] for i in range(4)]
    assert ctypes.string_at(strings.buffers[2] + o[2], o[3] - o[2]) == b"zz"
    array.release(ctypes.byref(array))
    end = ArrowArray()
    assert s.contents.get_next(s, ctypes.byref(end)) == 0 and not end.release
    del chars


POINT = ember.struct_([("x", ember.int64()), ("tags", ember.list_(ember.utf8()))])
ATTRS = ember.map_(ember.utf8(), ember.struct_([("w", ember.float64())]))


def nested_sample(n):
    points = [None if i % 5 == 0 else {"x": None if i % 3 == 0 else i, "tags": ["t"] * (i % 3)}
              for i in range(n)]
    attrs = [None if i % 4 == 0 else [("k%d" % k, None if k == 1 else {"w": i + k / 2})
                                      for k in range(i % 3)] for i in range(n)]
    return {"id": list(range(n)), "point": points, "attrs": attrs}


def test_struct_and_map_columns_round_trip_through_the_capsule():
    want = nested_sample(50)
    # Three partitions: batches that are slices at odd offsets, struct children unsliced.
    t = ember.from_pydict({"id": want["id"], "point": ember.Series(want["point"], type=POINT),
                           "attrs": ember.Series(want["attrs"], type=ATTRS)},
                          partitions=3).collect()
    back = ember.from_arrow(t).collect()
    assert back.schema == t.schema
    assert back.to_pydict() == want


def test_struct_and_map_columns_export_as_arrow_specifies():
    want = nested_sample(6)
    t = ember.from_pydict({"point": ember.Series(want["point"], type=POINT),
                           "attrs": ember.Series(want["attrs"], type=ATTRS)}).collect()
    capsule = t.__arrow_c_stream__()  # owns the stream while it is read
    s = stream_of(capsule)
    schema = ArrowSchema()
    assert s.contents.get_schema(s, ctypes.byref(schema)) == 0
    point, attrs = schema.children[0].contents, schema.children[1].contents
    assert point.format == b"+s" and point.n_children == 2
    assert [point.children[i].contents.name for i in range(2)] == [b"x", b"tags"]
    assert [point.children[i].contents.format for i in range(2)] == [b"l", b"+l"]
    # A map: one non-nullable "entries" struct of a non-nullable key and a nullable value.
    assert attrs.format == b"+m" and attrs.n_children == 1
    entries = attrs.children[0].contents
    assert (entries.format, entries.name, entries.flags) == (b"+s", b"entries", 0)
    key, value = entries.children[0].contents, entries.children[1].contents
    assert (key.name, key.format, key.flags) == (b"key", b"u", 0)
    assert (value.name, value.format, value.flags) == (b"value", b"+s", 2)
    array = ArrowArray()
    assert s.contents.get_next(s, ctypes.byref(array)) == 0
    p, a = array.children[0].contents, array.children[1].contents
    # A struct has one buffer (validity) and its fields; a map, validity and offsets.
    assert (p.n_buffers, p.n_children, p.null_count) == (1, 2, 2)
    assert (a.n_buffers, a.n_children, a.null_count) == (2, 1, 2)
    x = p.children[0].contents
    xs = ctypes.cast(x.buffers[1], ctypes.POINTER(ctypes.c_int64))
    assert [xs[x.offset + p.offset + i] for i in (1, 2, 4)] == [1, 2, 4]
    offsets = ctypes.cast(a.buffers[1], ctypes.POINTER(ctypes.c_int32))
    assert [offsets[a.offset + i + 1] - offsets[a.offset + i] for i in range(6)] == \
        [0 if row is None else len(row) for row in want["attrs"]]
    array.release(ctypes.byref(array))
    schema_release = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))(schema.release)
    schema_release(ctypes.byref(schema))


def test_from_arrow_rejects_other_objects():
    with pytest.raises(ember.InvalidArgument, match="__arrow_c_stream__"):
        ember.from_arrow([1, 2, 3])


def test_write_arrow_file_and_stream_formats(tmp_path):
    df = ember.range(1000, partitions=2).with_column("s", ember.col("id").cast(ember.utf8()))
    df.write_arrow(str(tmp_path / "file"), compression="zstd")
    df.write_arrow(str(tmp_path / "stream"), compression="lz4", stream=True)
    assert sorted(os.listdir(tmp_path / "stream")) == ["_SUCCESS", "part-00000.arrows",
                                                       "part-00001.arrows"]
    with open(tmp_path / "stream" / "part-00000.arrows", "rb") as f:
        assert f.read(6) != b"ARROW1"  # no file-format magic
    for sub, pattern in (("file", "*.arrow"), ("stream", "*.arrows")):
        got = ember.read_arrow(str(tmp_path / sub / pattern)).sort("id").collect().to_pydict()
        assert got["id"] == list(range(1000)) and got["s"][7] == "7"
    with pytest.raises(ember.InvalidArgument, match="compression='brotli'"):
        df.write_arrow(str(tmp_path / "bad"), compression="brotli")
