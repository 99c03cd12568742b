// DuckDB reads what ember wrote (DIR/ember-*/part-*.parquet) and compares it, row for row, with
// the files DuckDB wrote itself (DIR/duckdb/*.parquet) in both directions (EXCEPT ALL), types
// as ember maps them; and ember's explode with DuckDB's unnest.
// Usage: node check_parquet_with_duckdb.mjs DIR NPM_DIR
import { createRequire } from 'module';
import { readdirSync } from 'fs';

const [dir, npmDir] = process.argv.slice(2);
const require = createRequire(npmDir + '/');
const { DuckDBInstance } = require('@duckdb/node-api');
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();

async function scalar(sql) {
  const r = await con.runAndReadAll(sql);
  return r.getRows()[0][0];
}

// The DuckDB table as ember reads it: int16 -> int32, decimal -> double.
const asEmber = (file) => `select id, i32, f64, f32, s, u, b, ts, i16::INTEGER as i16,
    dec::DOUBLE as dec, d, bin, xs, tags, emb from '${file}'`;
let failures = 0;
const names = readdirSync(`${dir}/duckdb`).map((f) => f.replace(/\.parquet$/, ''));
for (const name of names) {
  const original = asEmber(`${dir}/duckdb/${name}.parquet`);
  const ours = `select * from '${dir}/ember-${name}/part-*.parquet'`;
  const missing = await scalar(`select count(*) from (${original} except all ${ours})`);
  const extra = await scalar(`select count(*) from (${ours} except all ${original})`);
  const groups = await scalar(
      `select count(*) from parquet_metadata('${dir}/ember-${name}/part-*.parquet') where column_id = 0`);
  const rows = await scalar(`select count(*) from (${ours})`);
  const ok = missing === 0n && extra === 0n && rows === 10000n && groups > 2n;
  console.log(`${name}: ${rows} rows in ${groups} row groups, ${missing} missing, ${extra} extra` +
              (ok ? '' : '  <-- MISMATCH'));
  if (!ok) failures++;
}
const unnest = `select id, unnest(tags) as tags from '${dir}/duckdb/zstd.parquet'`;
const exploded = `select id, tags from '${dir}/explode/part-*.parquet'`;
const m1 = await scalar(`select count(*) from (${unnest} except all ${exploded})`);
const m2 = await scalar(`select count(*) from (${exploded} except all ${unnest})`);
const n = await scalar(`select count(*) from (${exploded})`);
console.log(`explode vs unnest: ${n} rows, ${m1} missing, ${m2} extra`);
if (m1 !== 0n || m2 !== 0n || n === 0n) failures++;
if (failures) {
  console.error(`${failures} check(s) failed`);
  process.exit(1);
}
