#!/usr/bin/env bash
# Parquet, ember vs DuckDB, in one run on one file that DuckDB generates (8 columns of mixed
# types, Snappy; ~1 GB at the default 35M rows), 2 threads each: every column aggregated
# straight from the file, the file read into memory, written back, and the peak RSS of ember
# streaming Parquet -> filter -> Parquet. Prints a markdown table of
# median seconds and ratios. Then the same read and write on a nested file (an image
# struct<bytes, path> and a list<float> embedding per row; ~1 GB at the default 1.2M rows).
#   bench/parquet/run.sh [BUILD_DIR] [ROWS] [REPEAT] [NESTED_ROWS]
#   (default build, 35M rows, 3, 1.2M nested rows; NESTED_ROWS 0 skips the nested file)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
rows=${2:-35000000}
repeat=${3:-3}
nested_rows=${4:-1200000}
npm=${EMBER_NPM_DIR:-$root/.cache/npm}
work=${EMBER_BENCH_DIR:-$build/bench/parquet/data}
ninja -C "$build" parquet_bench >/dev/null
mkdir -p "$work"
file=$work/input-v2-$rows.parquet  # v2: a nullable int and a DECIMAL column
[[ -f $file ]] || node "$root/bench/parquet/duckdb_parquet.mjs" "$npm" generate "$file" "$rows"
ember=$("$build/bench/parquet/parquet_bench" read "$file" "$work" 2 "$repeat")
duck=$(node "$root/bench/parquet/duckdb_parquet.mjs" "$npm" run "$file" "$work" 2 "$repeat")
pipe=$("$build/bench/parquet/parquet_bench" pipeline "$file" "$work" 2)
nested_file=$work/nested-$nested_rows.parquet
nested_ember='' nested_duck=''
if (( nested_rows > 0 )); then
  [[ -f $nested_file ]] ||
    node "$root/bench/parquet/duckdb_parquet.mjs" "$npm" generate-nested "$nested_file" "$nested_rows"
  nested_ember=$("$build/bench/parquet/parquet_bench" read "$nested_file" "$work" 2 "$repeat")
  nested_duck=$(node "$root/bench/parquet/duckdb_parquet.mjs" "$npm" run "$nested_file" "$work" 2 \
    "$repeat" nested)
fi
python3 - "$ember" "$duck" "$pipe" "$file" "$nested_ember" "$nested_duck" "$nested_file" <<'PY'
import json, os, sys
ember = {r["op"]: r for r in map(json.loads, sys.argv[1].splitlines())}
duck = {r["op"]: r for r in map(json.loads, sys.argv[2].splitlines())}
pipe = json.loads(sys.argv[3])
size = os.path.getsize(sys.argv[4])
print(f"{sys.argv[4]}: {size / 1e9:.2f} GB, 2 threads each, medians\n")
print("| operation | ember (s) | DuckDB (s) | ratio | target |")
print("|---|---|---|---|---|")
# scan: every column aggregated from the file (SELECT sum(...), count(...)); read: the whole
# file into memory (DuckDB: CREATE TABLE AS); write: that table back with Snappy (COPY TO).
for op, target in (("scan", 1.2), ("read", 1.5), ("write", 1.2)):
    e, d = ember[op]["seconds"], duck[op]["seconds"]
    print(f"| {op} | {e:.2f} | {d:.2f} | {e / d:.2f} | <= {target}: "
          f"{'yes' if e / d <= target else '**no**'} |")
for op in ("scan", "read"):
    same = ember[op]["check"] == duck[op]["check"]
    print(f"\nsame rows and sums ({op}): {'yes' if same else '**no**'} "
          f"({ember[op]['check']} vs {duck[op]['check']})")
rss = pipe["peak_rss_mb"]
print(f"Parquet -> filter -> Parquet: {pipe['seconds']:.2f} s, {pipe['rows']:,} rows kept, "
      f"peak RSS {rss:.0f} MB (target < 512: {'yes' if rss < 512 else '**no**'})")
if sys.argv[5]:
    ne = {r["op"]: r for r in map(json.loads, sys.argv[5].splitlines())}
    nd = {r["op"]: r for r in map(json.loads, sys.argv[6].splitlines())}
    nsize = os.path.getsize(sys.argv[7])
    print(f"\nnested (image struct<bytes, path>, list<float32> embedding): {nsize / 1e9:.2f} GB\n")
    print("| operation | ember (s) | DuckDB (s) | ratio | target |")
    print("|---|---|---|---|---|")
    for op, target in (("read", 1.2), ("write", 1.5)):
        e, d = ne[op]["seconds"], nd[op]["seconds"]
        print(f"| {op} | {e:.2f} | {d:.2f} | {e / d:.2f} | <= {target}: "
              f"{'yes' if e / d <= target else '**no**'} |")
    same = ne["read"]["check"] == nd["read"]["check"]
    print(f"\nsame rows, image bytes and embedding items read: {'yes' if same else 'no'} "
          f"({ne['read']['check']} vs {nd['read']['check']})")
PY
