#!/usr/bin/env bash
# Expr::url_download against `curl --parallel` over the same URLs, in one run: FILES small files
# (1 to 16 KiB, random bytes) served from memory by a node HTTP server on loopback
# (file_server.mjs); ember downloads them all into a binary column, curl into /dev/null, both
# with at most CONNECTIONS transfers at once, alternating, REPEAT times each. Prints a markdown
# table of median seconds and files per second (target: ember >= 0.8x curl's throughput).
#   bench/storage/download_run.sh [BUILD_DIR] [FILES] [REPEAT] [CONNECTIONS]
#   (default build, 10000 files, 5, 32)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
files=${2:-10000}
repeat=${3:-5}
connections=${4:-32}
ninja -C "$build" download_bench >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work/files" "$files" <<'PY'
import os, random, sys
os.makedirs(sys.argv[1])
rng = random.Random(7)
for i in range(int(sys.argv[2])):
    with open(os.path.join(sys.argv[1], f"f{i}"), "wb") as f:
        f.write(rng.randbytes(rng.randint(1024, 16384)))
PY
coproc server { node "$root/bench/storage/file_server.mjs" "$work/files"; }
trap 'exec {server[1]}>&-; wait; rm -rf "$work"' EXIT
read -r port <&"${server[0]}"
for ((i = 0; i < files; i++)); do echo "http://127.0.0.1:$port/f$i"; done > "$work/urls"
awk '{ print "url = \"" $0 "\"\noutput = \"/dev/null\"" }' "$work/urls" > "$work/curl.cfg"
python3 - "$build/bench/storage/download_bench" "$work" "$repeat" "$connections" "$files" <<'PY'
import json, statistics, subprocess, sys, time
bench, work, repeat, connections, files = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
size = sum(len(open(f"{work}/files/f{i}", "rb").read()) for i in range(files))
ember, curl = [], []
for _ in range(repeat):
    out = json.loads(subprocess.run([bench, f"{work}/urls", connections], check=True,
                                    capture_output=True, text=True).stdout)
    assert out["files"] == files and out["bytes"] == size, out
    ember.append(out["seconds"])
    start = time.perf_counter()
    subprocess.run(["curl", "--silent", "--no-progress-meter", "--fail", "--parallel", "--parallel-max", connections,
                    "--config", f"{work}/curl.cfg"], check=True)
    curl.append(time.perf_counter() - start)
e, c = statistics.median(ember), statistics.median(curl)
print(f"{files} files, {size / 1e6:.1f} MB, at most {connections} at once, medians of {repeat}\n")
print("| downloader | seconds | files/s | throughput vs curl | target >= 0.8 |")
print("|---|---|---|---|---|")
print(f"| curl --parallel | {c:.3f} | {files / c:,.0f} | 1.00 | |")
print(f"| ember url_download | {e:.3f} | {files / e:,.0f} | {c / e:.2f} | {'yes' if c / e >= 0.8 else '**no**'} |")
PY
