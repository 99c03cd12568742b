"""The examples under examples/python run as a user runs them, and their results are checked:
classify.py's output Parquet by DuckDB against a reference run of the same model here."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import ROOT

EXAMPLES = os.path.join(ROOT, "examples", "python")
NPM_DIR = os.environ.get("EMBER_NPM_DIR") or os.path.join(ROOT, ".cache", "npm")


def run_example(run_python, name, *args, timeout=600):
    code = "import runpy, sys\nsys.argv = %r\nrunpy.run_path(%r, run_name='__main__')\n" % (
        [name] + list(args), os.path.join(EXAMPLES, name))
    r = run_python(code, timeout=timeout)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def test_quickstart(run_python):
    out = run_example(run_python, "quickstart.py")
    assert "inits == concurrency: True" in out
    assert "udf CountVowels: 2 actors, 2 inits" in out


def duckdb(glob, column):
    r = subprocess.run(["node", os.path.join(os.path.dirname(__file__),
                                             "check_parquet_with_duckdb.mjs"), glob, column,
                        NPM_DIR], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("isolation", ["process", "thread"])
def test_classify_output_checked_by_duckdb(run_python, tmp_path, isolation):
    rows = 6000
    out = run_example(run_python, "classify.py", "--rows", str(rows), "--concurrency", "2",
                      "--isolation", isolation, "--workdir", str(tmp_path / "work"))
    assert "inits == concurrency  yes (2 == 2)" in out

    # The reference: the same model and inputs, run here without ember.
    sys.path.insert(0, EXAMPLES)
    try:
        import classify
    finally:
        sys.path.remove(EXAMPLES)
    points, _ = classify.make_points(rows, seed=2)
    expected = np.bincount(classify.predict(classify.build_model(), points),
                           minlength=classify.CLASSES)

    seen = duckdb(str(tmp_path / "work" / "predicted" / "*.parquet"), "predicted")
    assert seen["rows"] == rows and seen["distinct_ids"] == rows
    assert seen["counts"] == {str(k): int(n) for k, n in enumerate(expected) if n}


@pytest.mark.parametrize("isolation", ["process", "thread"])
def test_spellcheck_finds_what_run_sh_finds(run_python, tmp_path, isolation):
    out = run_example(run_python, "spellcheck.py", "--isolation", isolation, "--corpus",
                      str(tmp_path / "corpus"))
    assert "wrote 117659 WordNet glosses" in out
    assert "documents processed   117659" in out
    assert "with misspellings     10558 (9.0%)" in out
    assert "inits == concurrency  yes (2 == 2)" in out
