"""Arrow IPC files no one here wrote: apache/arrow-testing's integration files
(tests/data/arrow-testing), in the file format (.arrow_file) and the stream format (.stream),
each read by ember and compared value by value with its golden JSON. A file with a type ember
does not read (union, interval) must be refused with an error naming the column; every other
file must match exactly (decimals, read as float64, to 12 significant digits; structs as dicts,
maps as lists of (key, value) tuples)."""

import datetime
import glob
import gzip
import json
import math
import os

import numpy
import pytest

import ember
from conftest import ROOT

DATA = os.path.join(ROOT, "tests", "data", "arrow-testing")
FILES = sorted(glob.glob(os.path.join(DATA, "*", "*.arrow_file")) +
               glob.glob(os.path.join(DATA, "*", "*.stream")))

# Files holding a column of a type ember refuses (docs/arrow.md), and that column.
REFUSED = {
    "generated_interval": ("f5", "Interval"),
    "generated_union": ("sparse", "Union"),
}

MICROS = {"SECOND": (1000000, 1), "MILLISECOND": (1000, 1), "MICROSECOND": (1, 1),
          "NANOSECOND": (1, 1000)}
EPOCH = datetime.date(1970, 1, 1)


def stem(path):
    return os.path.splitext(os.path.basename(path))[0]


def truncated(v, divide):
    return -((-v) // divide) if v < 0 else v // divide


class Golden:
    """The values a golden JSON file says each column holds, as ember presents them."""

    def __init__(self, path):
        with gzip.open(os.path.splitext(path)[0] + ".json.gz") as f:
            self.doc = json.load(f)
        self.dictionaries = {d["id"]: d["data"]["columns"][0]
                             for d in self.doc.get("dictionaries", [])}

    def fields(self):
        return self.doc["schema"]["fields"]

    def column(self, index):
        field = self.fields()[index]
        values = []
        for batch in self.doc["batches"]:
            values += self.values(field, batch["columns"][index], dictionary=True)
        return values

    def values(self, field, col, dictionary):
        n = col["count"]
        if dictionary and field.get("dictionary"):
            entries = self.values(field, self.dictionaries[field["dictionary"]["id"]], False)
            valid = col.get("VALIDITY", [1] * n)
            return [entries[int(k)] if valid[i] else None for i, k in enumerate(col["DATA"][:n])]
        t = field["type"]
        name = t["name"]
        if name == "null":
            return [None] * n
        valid = col.get("VALIDITY", [1] * n)
        if name in ("list", "largelist", "fixedsizelist"):
            items = self.values(field["children"][0], col["children"][0], True)
            if name == "fixedsizelist":
                size = t["listSize"]
                bounds = [(i * size, (i + 1) * size) for i in range(n)]
            else:
                offsets = [int(o) for o in col["OFFSET"]]
                bounds = [(offsets[i], offsets[i + 1]) for i in range(n)]
            return [items[a:b] if valid[i] else None for i, (a, b) in enumerate(bounds)]
        if name == "struct":
            return self.structs(field, col, valid)
        if name == "map":
            entries = self.values(field["children"][0], col["children"][0], True)
            offsets = [int(o) for o in col["OFFSET"]]
            return [[tuple(e.values()) for e in entries[offsets[i]:offsets[i + 1]]]
                    if valid[i] else None for i in range(n)]
        data = col["DATA"][:n]
        return [self.scalar(t, v) if valid[i] else None for i, v in enumerate(data)]

    def structs(self, field, col, valid):
        """Dicts of the struct's fields, named as ember names them: an unnamed field f<i>."""
        names = [c["name"] or "f%d" % i for i, c in enumerate(field["children"])]
        assert len(set(names)) == len(names), names
        fields = [self.values(f, c, True) for f, c in zip(field["children"], col["children"])]
        return [dict(zip(names, (values[i] for values in fields))) if valid[i] else None
                for i in range(col["count"])]

    @staticmethod
    def scalar(t, v):
        name = t["name"]
        if name == "int":
            return int(v)
        if name == "bool":
            return bool(v)
        if name == "floatingpoint":
            dtype = {"HALF": numpy.float16, "SINGLE": numpy.float32, "DOUBLE": numpy.float64}
            return float(dtype[t["precision"]](float(v)))
        if name in ("utf8", "largeutf8"):
            return v
        if name in ("binary", "largebinary", "fixedsizebinary"):
            return bytes.fromhex(v)
        if name == "decimal":
            return int(v) / 10 ** t["scale"]
        if name == "date" and t["unit"] == "DAY":
            return EPOCH + datetime.timedelta(days=int(v))
        if name == "date":  # date64: milliseconds, read as a timestamp
            return int(v) * 1000
        if name in ("time", "timestamp", "duration"):
            multiply, divide = MICROS[t["unit"]]
            return truncated(int(v) * multiply, divide)
        raise AssertionError("no golden conversion for " + name)


def ember_columns(path, schema):
    """Every column of the file read by ember; timestamps as int64 microseconds (Python's
    datetime stops at year 9999, the golden files do not)."""
    df = ember.read_arrow(path)
    exprs = []
    for field in schema:
        e = ember.col(field.name)
        if str(field.type).startswith("timestamp"):
            e = e.cast(ember.int64())
        exprs.append(e.alias(field.name))
    if not exprs:
        return []
    table = df.select(*exprs).collect().to_pydict()
    return [table[field.name] for field in schema]


def same(golden_value, ember_value, decimal):
    if golden_value is None or ember_value is None:
        return golden_value is None and ember_value is None
    if isinstance(golden_value, (list, tuple)):
        return type(golden_value) is type(ember_value) and len(golden_value) == len(
            ember_value) and all(same(g, e, decimal) for g, e in zip(golden_value, ember_value))
    if isinstance(golden_value, dict):
        return isinstance(ember_value, dict) and list(golden_value) == list(ember_value) and all(
            same(golden_value[k], ember_value[k], decimal) for k in golden_value)
    if decimal:
        return math.isclose(golden_value, ember_value, rel_tol=1e-12, abs_tol=1e-300)
    if isinstance(golden_value, float) and math.isnan(golden_value):
        return isinstance(ember_value, float) and math.isnan(ember_value)
    return golden_value == ember_value and type(golden_value) is type(ember_value)


def test_the_integration_files_are_here():
    assert len(FILES) == 2 * 27  # each file in both formats
    assert os.path.exists(os.path.join(DATA, "LICENSE.txt"))


@pytest.mark.parametrize("path", FILES, ids=[os.path.basename(p) for p in FILES])
def test_file_matches_its_golden_json(path):
    golden = Golden(path)
    if stem(path) in REFUSED:
        column, kind = REFUSED[stem(path)]
        with pytest.raises(ember.InvalidArgument,
                           match="column '%s' is of Arrow type %s, which ember does not read"
                           % (column, kind)):
            ember.read_arrow(path).collect()
        return
    schema = ember.read_arrow(path).schema
    names = [f["name"] for f in golden.fields()]
    # A name the file repeats is renamed in its repeats, as the Parquet reader does.
    assert len(schema) == len(names)
    got = ember_columns(path, schema)
    for index, field in enumerate(golden.fields()):
        want = golden.column(index)
        decimal = field["type"]["name"] == "decimal"
        assert len(got[index]) == len(want), field["name"]
        wrong = [(row, w, g) for row, (w, g) in enumerate(zip(want, got[index]))
                 if not same(w, g, decimal)]
        assert not wrong, "%s: column %s (%s): %d rows differ, first %r" % (
            stem(path), field["name"], field["type"], len(wrong), wrong[:3])
