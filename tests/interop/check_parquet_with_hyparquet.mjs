// A second, independent reader of ember's Parquet files: hyparquet (pure JavaScript, its own
// Thrift, page, level and codec code) reads every DIR/ember-*/part-*.parquet and checks each
// value against the formulas that wrote the table (write_parquet_with_duckdb.mjs), as ember
// types them (int16 as int32, decimal as float64, date as days since 1970).
// Usage: node check_parquet_with_hyparquet.mjs DIR NPM_DIR
import { readdirSync } from 'fs';
import { pathToFileURL } from 'url';

const [dir, npmDir] = process.argv.slice(2);
const load = (pkg, file) => import(pathToFileURL(`${npmDir}/node_modules/${pkg}/src/${file}`).href);
const { parquetReadObjects, asyncBufferFromFile, parquetMetadataAsync } = await load('hyparquet', 'node.js');
const { compressors } = await load('hyparquet-compressors', 'index.js');

// Timestamps stay exact microseconds (hyparquet's default Date would drop them), dates stay
// days; binary stays bytes.
const parsers = {
  dateFromDays: (days) => days,
  timestampFromMicroseconds: (micros) => BigInt(micros),
  timestampFromMilliseconds: (millis) => BigInt(millis) * 1000n,
  timestampFromNanoseconds: (nanos) => BigInt(nanos) / 1000n,
};

const jan2024 = 1704067200000000n;
const f32 = Math.fround;
function expected(i) {
  const n = Number(i);
  return {
    id: i,
    i32: n % 7 === 0 ? null : n * 3 - 100,
    f64: n % 5 === 0 ? null : n * 1.5,
    f32: f32(n / 4),
    s: n % 11 === 0 ? null : `word${n % 13}`,
    u: `unique-${n}`,
    b: n % 17 === 0 ? null : n % 3 === 0,
    ts: jan2024 + i * 1000000n,
    i16: n % 100,
    dec: (n % 1000) / 100,
    d: 19723 + (n % 30),  // 2024-01-01 is day 19723
    bin: new TextEncoder().encode(`b${n}`),
    xs: n % 4 === 0 ? null : Array.from({ length: n % 4 }, (_, x) => BigInt(x) * i),
    tags: n % 6 === 0 ? null : [`t${n % 3}`, null, `u${n}`],
    emb: [f32(n), f32(n * 2), null],
  };
}

// One canonical text per value, so that lists, bytes, BigInts and null compare as plain strings.
function canonical(v) {
  if (v === null || v === undefined) return 'null';
  if (v instanceof Uint8Array) return `bytes:${new TextDecoder().decode(v)}`;
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  return `${typeof v === 'bigint' ? 'i' : typeof v}:${v}`;
}

let failures = 0;
const names = readdirSync(dir).filter((d) => d.startsWith('ember-'));
for (const name of names) {
  const seen = new Set();
  let mismatches = 0, groups = 0, count = 0;
  for (const part of readdirSync(`${dir}/${name}`).filter((f) => f.endsWith('.parquet'))) {
    const file = await asyncBufferFromFile(`${dir}/${name}/${part}`);
    groups += (await parquetMetadataAsync(file)).row_groups.length;
    const rows = await parquetReadObjects({ file, compressors, parsers, utf8: false });
    for (const row of rows) {
      const want = expected(row.id);
      seen.add(row.id);
      count++;
      for (const [column, value] of Object.entries(want)) {
        const [got, exp] = [canonical(row[column]), canonical(value)];
        if (got === exp) continue;
        if (mismatches++ < 3) console.error(`${name}/${part} id ${row.id} ${column}: got ${got}, want ${exp}`);
      }
    }
  }
  const ok = mismatches === 0 && count === 10000 && seen.size === 10000 && groups > 2;
  console.log(`hyparquet ${name}: ${count} rows, ${seen.size} distinct ids in ${groups} row groups, ` +
              `${mismatches} mismatched values` + (ok ? '' : '  <-- MISMATCH'));
  if (!ok) failures++;
}
if (names.length === 0) failures++;
if (failures) {
  console.error(`${failures} check(s) failed`);
  process.exit(1);
}
