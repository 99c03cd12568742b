"""Shared set-up of the Python tests: the package under test is the build tree's
(build/python, on PYTHONPATH under ctest; found from the repository root otherwise)."""

import os
import subprocess
import sys

import pytest

ROOT = os.environ.get("EMBER_SOURCE_DIR") or os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("EMBER_BUILD_DIR") or os.path.join(ROOT, "build")
PACKAGE_DIR = os.path.join(BUILD, "python")
if PACKAGE_DIR not in sys.path and not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, PACKAGE_DIR)


@pytest.fixture
def run_python(tmp_path):
    """Runs a Python script (text) in a fresh interpreter with the package on its path;
    returns the CompletedProcess (stdout and stderr as text)."""

    def run(code, timeout=120, env=None, cwd=None):
        script = tmp_path / "script.py"
        script.write_text(code)
        full_env = dict(os.environ)
        full_env["PYTHONPATH"] = PACKAGE_DIR + os.pathsep + full_env.get("PYTHONPATH", "")
        full_env.update(env or {})
        return subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                              timeout=timeout, env=full_env, cwd=cwd or str(tmp_path))

    return run


def child_pids(pid=None):
    """The ids of the live (non-zombie) child processes of `pid` (default: this process)."""
    pid = pid or os.getpid()
    children = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            children.append(int(entry))
    return children
