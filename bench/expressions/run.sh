#!/usr/bin/env bash
# The expression library, ember vs DuckDB, in one run on the same generated data, 2 threads each:
# prints a markdown table of median seconds and ratios, and each side's peak RSS.
#   bench/expressions/run.sh [BUILD_DIR] [ROWS] [EMBEDDINGS]   (default build, 10M, 100k)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
rows=${2:-10000000}
dim=${3:-100000}
npm=${EMBER_NPM_DIR:-$root/.cache/npm}
ninja -C "$build" expressions_bench >/dev/null
ember=$("$build/bench/expressions/expressions_bench" "$rows" "$dim" 2 3)
duck=$(node "$root/bench/expressions/duckdb_expressions.mjs" "$npm" "$rows" "$dim" 2 3)
python3 - "$ember" "$duck" "$rows" "$dim" <<'PY'
import json, sys
ember = [json.loads(l) for l in sys.argv[1].splitlines()]
duck = [json.loads(l) for l in sys.argv[2].splitlines()]
print(f"{int(sys.argv[3]):,} rows, {int(sys.argv[4]):,} embeddings of 384 floats, 2 threads each\n")
print("| query | ember (s) | DuckDB (s) | ratio | target <= 1.5 | same result |")
print("|---|---|---|---|---|---|")
d = {r["query"]: r for r in duck if "query" in r}
for e in (r for r in ember if "query" in r):
    b = d[e["query"]]
    ratio = e["seconds"] / b["seconds"]
    same = "yes" if e["check"] == b["check"] else f"no ({e['check']} vs {b['check']})"
    print(f"| {e['query']} | {e['seconds']:.3f} | {b['seconds']:.3f} | {ratio:.2f} | "
          f"{'yes' if ratio <= 1.5 else '**no**'} | {same} |")
rss = {r["system"]: r["peak_rss_mb"] for r in ember + duck if "peak_rss_mb" in r}
print(f"\npeak RSS: ember {rss['ember']:.0f} MB, DuckDB (node process) {rss['duckdb']:.0f} MB")
PY
