// A second, independent reader of ember's nested Parquet output: hyparquet (pure JavaScript, its
// own level decoding and record assembly) reads DIR/nested*/part-*.parquet, and every row must
// equal DIR/expected.jsonl once hyparquet's forms are put in DuckDB's (BigInt as text, bytes as
// DuckDB's BLOB text, a map's {k: v} object as [{key, value}]).
// Usage: node check_nested_parquet_with_hyparquet.mjs DIR NPM_DIR
import { readFileSync, readdirSync } from 'fs';
import { pathToFileURL } from 'url';

const [dir, npmDir] = process.argv.slice(2);
const load = (pkg, file) => import(pathToFileURL(`${npmDir}/node_modules/${pkg}/src/${file}`).href);
const { parquetReadObjects, asyncBufferFromFile } = await load('hyparquet', 'node.js');
const { compressors } = await load('hyparquet-compressors', 'index.js');

const expected = readFileSync(`${dir}/expected.jsonl`, 'utf8').trimEnd().split('\n').map(JSON.parse);
const maps = new Set(['counts', 'stats']);  // the map columns (their keys are text)

function blobText(bytes) {
  let s = '';
  for (const b of bytes) {
    s += b <= 0x1f || b === 0x22 || b === 0x27 || b >= 0x7f
        ? `\\x${b.toString(16).toUpperCase().padStart(2, '0')}` : String.fromCharCode(b);
  }
  return s;
}

function duckForm(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return blobText(v);
  if (Array.isArray(v)) return v.map(duckForm);
  if (typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, duckForm(x)]));
  return v;
}

const columnForm = (column, v) => maps.has(column) && v !== null
    ? Object.entries(v).map(([key, value]) => ({ key, value: duckForm(value) }))
    : duckForm(v);

let failures = 0;
const outputs = readdirSync(dir).filter((d) => d.startsWith('nested'));
for (const output of outputs) {
  let mismatches = 0, count = 0;
  for (const part of readdirSync(`${dir}/${output}`).filter((f) => f.endsWith('.parquet'))) {
    const file = await asyncBufferFromFile(`${dir}/${output}/${part}`);
    const rows = await parquetReadObjects({ file, compressors, utf8: false });
    for (const row of rows) {
      const want = expected[Number(row.id)];
      count++;
      for (const column of Object.keys(want)) {
        const got = JSON.stringify(columnForm(column, row[column]));
        if (got === JSON.stringify(want[column])) continue;
        if (mismatches++ < 10) {
          console.error(`${output}/${part} id ${row.id} ${column}: hyparquet read ${got}, ` +
                        `ember wrote ${JSON.stringify(want[column])}`);
        }
      }
    }
  }
  if (count !== expected.length) mismatches++;
  console.log(`hyparquet ${output}: ${count} rows, ${mismatches} mismatched values` +
              (mismatches ? '  <-- MISMATCH' : ''));
  failures += mismatches;
}
if (outputs.length === 0) failures++;
if (failures) {
  console.error(`${failures} check(s) failed`);
  process.exit(1);
}
console.log('hyparquet reads every nested value ember wrote');
