"""Ctrl-C during collect(): KeyboardInterrupt within a second, and no worker process left."""

import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import PACKAGE_DIR, child_pids

SCRIPT = r"""
import os, sys, time
import ember

@ember.cls(returns=ember.int64(), concurrency=2, isolation=sys.argv[1], batch_size=1)
class Slow:
    def __call__(self, x):
        time.sleep(0.2)
        return x.to_numpy()

print("started", flush=True)
try:
    ember.range(100000, partitions=4).select(Slow()("id")).collect()
    print("finished", flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(42)
"""


@pytest.mark.parametrize("isolation", ["process", "thread"])
def test_ctrl_c_interrupts_collect_and_leaves_no_worker(tmp_path, isolation):
    script = tmp_path / "slow.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=PACKAGE_DIR + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.Popen([sys.executable, str(script), isolation], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env,
                         # A shell without job control starts background jobs with SIGINT
                         # ignored; Python then installs no handler for it.
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert p.stdout.readline().strip() == "started"
        deadline = time.time() + 30
        want = 2 if isolation == "process" else 0
        while len(child_pids(p.pid)) < want and time.time() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)  # calls under way
        workers = child_pids(p.pid)
        assert len(workers) == want
        sent = time.time()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=20)
        elapsed = time.time() - sent
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 42, (out, err)
    assert "interrupted" in out
    print("interrupted after %.3f s" % elapsed)
    assert elapsed < 1.5, elapsed
    for pid in workers:
        assert not os.path.exists("/proc/%d" % pid) or open(
            "/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[0] == "Z"
