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
