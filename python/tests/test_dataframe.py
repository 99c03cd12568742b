"""The DataFrame API: sources, transformations, relational operators, run options, writes."""

import os

import pytest

import ember
from ember import col, lit


def test_range_where_select_collect():
    t = ember.range(10, partitions=3).where(col("id") % 2 == 0).select(
        "id", (col("id") * 10).alias("x")).collect()
    assert t.to_pydict() == {"id": [0, 2, 4, 6, 8], "x": [0, 20, 40, 60, 80]}
    assert t.num_rows == 5 and len(t) == 5
    assert t.column_names == ["id", "x"]


def test_python_literals_in_expressions():
    df = ember.from_pydict({"a": [1, 2, 3], "s": ["x", "y", "x"], "f": [0.5, 1.5, 2.5]})
    t = df.where((col("s") == "x") & (col("a") >= 1)).with_column("b", 2 * col("a") + 1).with_column(
        "g", col("f") / 2).collect()
    assert t.to_pydict() == {"a": [1, 3], "s": ["x", "x"], "f": [0.5, 2.5], "b": [3, 7],
                             "g": [0.25, 1.25]}
    assert (ember.range(5).where(~(col("id") < 3)).collect().to_pydict() == {"id": [3, 4]})
    assert ember.range(3).with_column("c", lit("k")).collect().to_pydict()["c"] == ["k"] * 3


def test_expr_has_no_truth_value():
    with pytest.raises(TypeError, match="truth value"):
        bool(col("a") > 1)


def test_from_pydict_types_and_nulls():
    t = ember.from_pydict({"i": [1, None, 3], "f": [1, 2.5, None], "s": ["a", None, "c"],
                           "b": [True, False, None], "l": [[1, 2], [], None]}).collect()
    assert t.schema["i"] == ember.int64()
    assert t.schema["f"] == ember.float64()
    assert t.schema["s"] == ember.utf8()
    assert t.schema["b"] == ember.boolean()
    assert t.schema["l"] == ember.list_(ember.int64())
    assert t.to_pylist()[1] == {"i": None, "f": 2.5, "s": None, "b": False, "l": []}
    assert t.column("i").null_count == 1


def test_group_by_agg_sort_top_k_distinct():
    df = ember.from_pydict({"k": ["a", "b", "a", "c", "b", "a"], "v": [1, 2, 3, 4, 5, 6]},
                           partitions=2)
    g = df.group_by("k").agg(col("v").sum().alias("total"), col("v").count().alias("n"))
    assert g.sort("k").collect().to_pydict() == {"k": ["a", "b", "c"], "total": [10, 7, 4],
                                                 "n": [3, 2, 1]}
    assert df.sort("v", descending=True).limit(2).collect().to_pydict()["v"] == [6, 5]
    assert df.top_k(2, "v").collect().to_pydict()["v"] == [1, 2]
    assert df.distinct("k").collect().to_pydict()["k"] == ["a", "b", "c"]
    assert df.agg(col("v").max(), col("v").mean().alias("m")).collect().to_pydict() == {
        "v": [6], "m": [3.5]}
    lists = df.group_by("k").agg(col("v").list()).sort("k").collect().to_pydict()
    assert lists["v"] == [[1, 3, 6], [2, 5], [4]]


def test_join_and_explode():
    left = ember.from_pydict({"id": [1, 2, 3], "a": ["x", "y", "z"]})
    right = ember.from_pydict({"id": [2, 3, 4], "b": [20, 30, 40]})
    inner = left.join(right, on="id").sort("id").collect().to_pydict()
    assert inner == {"id": [2, 3], "a": ["y", "z"], "b": [20, 30]}
    full = left.join(right, on=["id"], how="left").sort("id").collect().to_pydict()
    assert full["b"] == [None, 20, 30]
    anti = left.join(right, on="id", how="anti").collect().to_pydict()
    assert anti == {"id": [1], "a": ["x"]}
    with pytest.raises(ember.InvalidArgument, match="how="):
        left.join(right, on="id", how="sideways")
    ex = ember.from_pydict({"k": [1, 2], "xs": [[1, 2, 3], [4]]}).explode("xs").collect()
    assert ex.to_pydict() == {"k": [1, 1, 1, 2], "xs": [1, 2, 3, 4]}


def test_expression_namespaces():
    t = ember.from_pydict({"s": [" Hello ", "world"]}).select(
        col("s").str.strip().str.upper().alias("u"), col("s").str.length().alias("n"),
        col("s").str.split("l").list.size().alias("parts")).collect()
    assert t.to_pydict() == {"u": ["HELLO", "WORLD"], "n": [7, 5], "parts": [3, 2]}


def test_schema_explain_and_repr():
    df = ember.range(4).with_column("y", col("id").cast(ember.float64()))
    assert df.schema.names == ["id", "y"]
    assert df.schema["y"] == ember.float64()
    assert df.columns == ["id", "y"]
    plan = df.explain()
    assert "Range" in plan or "range" in plan
    assert repr(df) == plan
    assert "id" in repr(df.collect())


def test_run_options_as_keywords():
    res = ember.range(1000, partitions=4).execute(threads=2, progress=False,
                                                   memory_budget_bytes=1 << 26)
    assert res.table.num_rows == 1000
    assert res.stats.rows_out == 1000
    assert res.rejected.num_rows == 0
    with pytest.raises(ember.InvalidArgument, match="unknown run option 'thread'"):
        ember.range(3).collect(thread=2)


def test_writes_and_reads_round_trip(tmp_path):
    df = ember.from_pydict({"id": [1, 2, 3], "s": ["a", "b", None]}, partitions=2)
    for fmt, reader in (("parquet", ember.read_parquet), ("csv", ember.read_csv),
                        ("jsonl", ember.read_jsonl), ("arrow", ember.read_arrow)):
        out = tmp_path / fmt
        res = getattr(df, "write_" + fmt)(str(out))
        assert isinstance(res, ember.QueryResult) and res.stats.rows_out == 3
        assert os.path.exists(out / "_SUCCESS")
        back = reader(str(out / ("*." + fmt))).sort("id").collect().to_pydict()
        assert back == {"id": [1, 2, 3], "s": ["a", "b", None]}, fmt
    res = df.write_parquet(str(tmp_path / "z"), compression="zstd", row_group_rows=2)
    assert ember.read_parquet(str(tmp_path / "z" / "*.parquet")).collect().num_rows == 3
    with pytest.raises(ember.InvalidArgument, match="compression"):
        df.write_parquet(str(tmp_path / "bad"), compression="lzma")


def test_resumable_write(tmp_path):
    res = ember.range(100, partitions=4).write_parquet(str(tmp_path / "r"), resumable=True)
    assert res.stats.rows_out == 100


def test_session_keyword_and_context_manager():
    with ember.Session(idle_timeout=30.0) as session:
        assert ember.range(5).collect(session=session).num_rows == 5
        assert session.stats().actors == 0


def test_version_and_types():
    assert ember.__version__.count(".") == 2
    assert repr(ember.fixed_size_list(ember.float32(), 3)) == \
        "ember.fixed_size_list(ember.float32(), 3)"
    assert str(ember.list(ember.utf8())) == "list<utf8>"
    import pickle
    t = ember.list_(ember.fixed_size_list(ember.int32(), 2))
    assert pickle.loads(pickle.dumps(t)) == t


def test_progress_degrades_to_lines_in_a_log(run_python):
    r = run_python("""
import ember
ember.range(200000, partitions=4).where(ember.col("id") % 3 == 0).collect(progress=True)
""")
    assert r.returncode == 0, r.stderr
    lines = [l for l in r.stderr.splitlines() if "rows in" in l]
    assert lines and "\x1b" not in r.stderr and "\r" not in r.stderr  # no terminal codes
    assert "200,000 rows in" in lines[-1]


def test_progress_bar_redraws_one_line_on_a_terminal(tmp_path):
    """stderr on a pseudo-terminal: the bar redraws in place (carriage return, erase line) every
    200 ms while the query runs, shows the UDF's pool, and ends with one full line."""
    import os
    import pty
    import subprocess
    import sys

    from conftest import PACKAGE_DIR
    script = tmp_path / "bar.py"
    script.write_text("""
import time
import ember

@ember.cls(returns=ember.int64(), batch_size=100)
class Slow:
    def __call__(self, x):
        time.sleep(0.1)
        return x.to_numpy()

ember.range(1200, partitions=4).select(Slow()("id")).collect(progress=True)
""")
    master, slave = pty.openpty()
    env = dict(os.environ, PYTHONPATH=PACKAGE_DIR + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, str(script)], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=slave, env=env)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    assert proc.wait(timeout=60) == 0, out
    text = out.decode()
    redraws = text.count("\r\x1b[K[ember]")
    assert redraws >= 4, text  # about 1.2 s of calls, a redraw each 200 ms, and the last line
    assert "| Slow " in text and " busy" in text
    assert text.rstrip("\r\n").rsplit("\r\x1b[K", 1)[-1].startswith("[ember] 1,200 rows in")
