"""The documented install command: scripts/install-python.sh into a fresh virtual environment,
then `import ember` there (no PYTHONPATH) with a process actor, whose worker must find the
package and the environment too. --prebuilt takes the package the build tree holds: the other
tests are using that tree, so this one must not rebuild it."""

import os
import subprocess

from conftest import BUILD, ROOT

SCRIPT = """
import os, ember
from ember import col

@ember.cls(returns=ember.int64(), isolation="process", concurrency=2)
class Pid:
    def __call__(self, x):
        return [os.getpid()] * len(x)

res = ember.range(100, partitions=2).select(Pid()("id").alias("pid")).execute()
pids = set(res.table.to_pydict()["pid"])
assert os.getpid() not in pids, pids
print("ok", ember.__path__[0], res.stats.udfs[0].inits)
"""


def test_install_into_a_fresh_venv(tmp_path):
    venv = tmp_path / "env"
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", str(venv)],
                   check=True, timeout=120)
    python = str(venv / "bin" / "python")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([os.path.join(ROOT, "scripts", "install-python.sh"), "--python", python,
                        "--prebuilt", BUILD], capture_output=True, text=True, env=env,
                       timeout=1200)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "installed ember" in r.stdout and str(venv) in r.stdout
    (tmp_path / "use.py").write_text(SCRIPT)
    r = subprocess.run([python, "use.py"], capture_output=True, text=True, env=env,
                       cwd=str(tmp_path), timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("ok " + str(venv)) and r.stdout.strip().endswith(" 2")
