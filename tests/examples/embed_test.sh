#!/usr/bin/env bash
# The embedding example end to end: embed 2,000 WordNet glosses (corpus written as Parquet on
# the first run), then DuckDB queries the embeddings ember wrote and must agree with the count
# and the mean ember printed. Usage: embed_test.sh EMBED_BINARY WORK_DIR NPM_DIR
set -euo pipefail
embed=$1 work=$2 npm=$3
mkdir -p "$work"
out=$("$embed" "$work" --max-docs 2000 --concurrency 2)
echo "$out"
count=$(awk '/^documents/ {print $2}' <<<"$out")
mean=$(awk '/^mean/ {print $2}' <<<"$out")
[[ "$count" == 2000 ]] || { echo "expected 2000 documents, got '$count'"; exit 1; }
cat >"$work/query.mjs" <<'JS'
import { createRequire } from 'module';
const [dir, npm, count, mean] = process.argv.slice(2);
const require = createRequire(npm + '/');
const { DuckDBInstance } = require('@duckdb/node-api');
const con = await (await DuckDBInstance.create(':memory:')).connect();
const r = await con.runAndReadAll(
    `select count(*), avg(list_avg(embedding)), min(len(embedding)), max(len(embedding))
     from '${dir}/embeddings/*.parquet'`);
const [n, avg, lo, hi] = r.getRows()[0];
console.log(`duckdb: count ${n}, avg(list_avg(embedding)) ${avg}, lengths ${lo}..${hi}`);
const ok = String(n) === count && lo === 384n && hi === 384n &&
           Math.abs(avg - Number(mean)) <= 1e-9 * Math.max(1, Math.abs(avg));
process.exit(ok ? 0 : 1);
JS
node "$work/query.mjs" "$work" "$npm" "$count" "$mean"
