"""A Python UDF under `mpirun -np 3`: ember.init() makes ranks 1 and 2 host actors, and each
rank constructs the class once (inits_per_rank), on thread and process actors alike."""

import os
import shutil
import subprocess
import sys

import pytest

from conftest import PACKAGE_DIR

SCRIPT = r"""
import os, sys
import ember
ember.init()  # under mpirun: ranks other than 0 serve here and never return
from ember import col

@ember.cls(returns=ember.int64(), concurrency=3, isolation=sys.argv[1])
class Pid:
    def __call__(self, x):
        return [os.getpid()] * len(x)

res = ember.range(3000, partitions=6).select(Pid()("id").alias("pid")).execute()
s = res.stats.udfs[0]
print("ranks", ember.cluster()["ranks"])
print("inits_per_rank", list(s.inits_per_rank))
print("actors_per_rank", list(s.actors_per_rank))
print("processes", len(set(res.table.to_pydict()["pid"])), "rows", res.table.num_rows)
"""


def on_three_ranks(script, text, *args):
    """Writes `text` to `script` and runs it under `mpirun -np 3` with the package importable."""
    script.write_text(text)
    flags = ["--oversubscribe", "--bind-to", "none"]
    if os.getuid() == 0:
        flags.append("--allow-run-as-root")
    env = dict(os.environ, OMPI_MCA_btl_base_warn_component_unused="0",
               PYTHONPATH=PACKAGE_DIR + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run(["timeout", "-k", "10", "120", "mpirun", *flags, "-np", "3",
                           "-x", "PYTHONPATH", sys.executable, str(script), *args],
                          capture_output=True, text=True, env=env, timeout=180)


@pytest.mark.skipif(shutil.which("mpirun") is None or not hasattr(os, "getuid"),
                    reason="mpirun not installed (openmpi-bin)")
@pytest.mark.parametrize("isolation", ["thread", "process"])
def test_python_udf_on_three_ranks(tmp_path, isolation):
    r = on_three_ranks(tmp_path / "ranks.py", SCRIPT, isolation)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "ranks 3" in r.stdout
    assert "inits_per_rank [1, 1, 1]" in r.stdout
    assert "actors_per_rank [1, 1, 1]" in r.stdout
    assert "processes 3 rows 3000" in r.stdout


FN_SCRIPT = r"""
import os
import numpy
import ember
ember.init()
from ember import col

OFFSET = 7  # a global the function refers to: pickled with it by value

@ember.fn(returns=ember.int64())
def shifted(x):
    return x.to_numpy() * 2 + OFFSET

@ember.fn(returns=ember.int64())
def pid(x):
    return [os.getpid()] * len(x)

res = ember.range(6000, partitions=6).select(
    col("id"), shifted("id").alias("y"), pid("id").alias("pid")).execute()
d = res.table.to_pydict()
wrong = sum(1 for i, (a, b) in enumerate(zip(d["id"], d["y"])) if a != i or b != 2 * i + 7)
print("partitions_per_rank", [r.partitions for r in res.stats.ranks])
print("processes", len(set(d["pid"])), "rows", res.table.num_rows, "wrong", wrong)
print("explain", ember.range(60, partitions=6).select(shifted("id")).explain().count("rank 0 alone"))
"""


@pytest.mark.skipif(shutil.which("mpirun") is None or not hasattr(os, "getuid"),
                    reason="mpirun not installed (openmpi-bin)")
def test_python_function_runs_on_every_rank(tmp_path):
    """An @ember.fn function travels pickled with the pipeline: each rank calls it on its own
    partitions (three processes), and the rows come back in input order."""
    r = on_three_ranks(tmp_path / "fn.py", FN_SCRIPT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "partitions_per_rank [2, 2, 2]" in r.stdout, r.stdout
    assert "processes 3 rows 6000 wrong 0" in r.stdout, r.stdout
    assert "explain 0" in r.stdout, r.stdout
