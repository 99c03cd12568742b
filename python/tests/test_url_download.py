"""Expr.url_download from Python: files behind http:// URLs and paths become bytes, in row
order; on_error='null' nulls the missing ones, 'raise' names them."""
import functools
import http.server
import os
import signal
import threading
import time

import pytest

import ember
from ember import col


@pytest.fixture
def served(tmp_path):
    """100 files f0..f99 under tmp_path, served by http.server on loopback: (base url, dir)."""
    for i in range(100):
        (tmp_path / f"f{i}").write_bytes(bytes((i + k) % 256 for k in range(i * 13)))
    handler = functools.partial(QuietHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", tmp_path
    server.shutdown()
    server.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def expected(i):
    return bytes((i + k) % 256 for k in range(i * 13))


def test_url_download_keeps_row_order_and_nulls_missing_files(served):
    base, _ = served
    urls = [f"{base}/f{i}" if i % 10 else f"{base}/missing{i}" for i in range(100)]
    urls[3] = None
    df = ember.from_pydict({"i": list(range(100)), "url": urls}, partitions=3)
    got = df.with_column("img", col("url").url_download(max_connections=8, on_error="null"))
    result = got.execute()
    rows = result.table.to_pydict()
    assert rows["i"] == list(range(100))
    assert rows["img"] == [None if i % 10 == 0 or i == 3 else expected(i) for i in range(100)]
    # Each missing file is a row of rejected (a null URL is not), in input order.
    rejected = result.rejected.to_pydict()
    assert rejected["url"] == [f"{base}/missing{i}" for i in range(0, 100, 10)]
    assert set(rejected["udf"]) == {"url_download(url)"}
    assert all("404" in e for e in rejected["error"])


def test_url_download_raise_names_the_missing_url(served):
    base, folder = served
    urls = [str(folder / "f1"), f"file://{folder}/f2", f"{base}/nothing-here"]
    df = ember.from_pydict({"url": urls}).with_column("img", col("url").url_download())
    with pytest.raises(ember.IoError, match="nothing-here.*404"):
        df.collect()
    with pytest.raises(ember.InvalidArgument, match="'raise' or 'null'"):
        col("url").url_download(on_error="skip")


def test_a_child_forked_without_exec_gets_an_error_not_a_hang(served):
    base, _ = served
    df = ember.from_pydict({"url": [f"{base}/f1"]}).with_column("img", col("url").url_download())
    assert df.collect().to_pydict()["img"] == [expected(1)]  # the transfer thread runs here
    pid = os.fork()
    if pid == 0:
        try:
            df.collect()
            code = 1
        except ember.IoError as e:
            code = 0 if "fork" in str(e) else 2
        except BaseException:
            code = 3
        os._exit(code)
    for _ in range(600):  # 30 s at most
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("the forked child's query hung")
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
