// apache/parquet-testing against DuckDB. For every file of DIR/data that DuckDB reads, ember
// (RUNNER, one process per file) must read the same number of rows and, column by column, the
// same nulls and the same figure of the values (a sum; for text and bytes their total length,
// for lists their item count, for dates their days, for instants their microseconds), or refuse
// the file with an error that KNOWN_GAPS lists for it. A listed file that ember now reads is a
// failure too, so that the list only shrinks. Every file of DIR/bad_data must end in a clear
// error or a read: never a crash or a hang.
// A file DuckDB does not read (the deprecated LZ4 codec, BYTE_STREAM_SPLIT of integers and
// fixed-length bytes) is checked the same way against a second reader, npm hyparquet, when it
// reads it.
// Usage: node check_parquet_testing.mjs DIR RUNNER NPM_DIR
import { spawnSync } from 'child_process';
import { createRequire } from 'module';
import { readdirSync } from 'fs';
import { pathToFileURL } from 'url';
import { sameJson } from './same_json.mjs';

const [dir, runner, npmDir] = process.argv.slice(2);
const require = createRequire(npmDir + '/');
const { DuckDBInstance } = require('@duckdb/node-api');
const con = await (await DuckDBInstance.create(':memory:')).connect();
const load = (pkg, file) => import(pathToFileURL(`${npmDir}/node_modules/${pkg}/src/${file}`).href);
const { parquetReadObjects, asyncBufferFromFile } = await load('hyparquet', 'node.js');
const { compressors } = await load('hyparquet-compressors', 'index.js');

// Files ember does not read yet, and the words its error gives (docs/types-and-formats.md lists
// the reader's gaps). Files with nested columns (structs, maps, lists of lists or of structs)
// are compared value by value at every depth, not only by their figures.
const KNOWN_GAPS = {
  // One 1 GiB string in one page, which ember's page reader refuses as implausible.
  'large_string_map.brotli.parquet': 'values in 1073741828 bytes',
  // A MAP of keys without values (DuckDB refuses it too; hyparquet reads it).
  'map_no_value.parquet': 'without a repeated key/value group',
  // Its dictionary page claims more bytes than its column chunk holds; DuckDB reads past it.
  'nation.dict-malformed.parquet': 'page runs past the column chunk',
};

// Where DuckDB is the one that is wrong: the file's README gives the values. DuckDB wraps an
// INT96 instant past the range of nanoseconds (290000-12-31T01:00:00+02:00 reads as a date in
// 226414 BC); ember keeps microseconds, which hold it. DuckDB's figure is taken over the other
// rows, and that instant's microseconds added.
const CORRECTIONS = {
  'int96_from_spark.parquet': { where: 'a is null or epoch_us(a) > -7000000000000000000',
                                add: { a: micros(290000, 12, 30, 23) } },
};

// Microseconds since 1970 of a UTC date and hour (proleptic Gregorian), as a Number.
function micros(y, m, d, h) {
  const yy = m <= 2 ? y - 1 : y, era = Math.floor(yy / 400), yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  const days = era * 146097 + doe - 719468;
  return Number((BigInt(days) * 24n + BigInt(h)) * 3600000000n);
}

function ember(file, ...flags) {
  const r = spawnSync(runner, [...flags, file], { encoding: 'utf8', timeout: 60000, maxBuffer: 1 << 28 });
  if (r.error || r.status !== 0 || !r.stdout.trim()) {
    return { crashed: `status ${r.status} signal ${r.signal} ${r.error ?? ''} ${r.stderr.slice(-300)}` };
  }
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

// DuckDB's figure of one column, as the runner computes ember's; null when there is none.
function figureSql(name, type) {
  const c = `"${name.replaceAll('"', '""')}"`;
  if (/\[\]$/.test(type)) return `sum(len(${c}))::DOUBLE`;
  if (type.startsWith('MAP')) return `sum(cardinality(${c}))::DOUBLE`;
  if (/^(FLOAT|DOUBLE)/.test(type)) return `sum(${c}::DOUBLE) filter (where not isnan(${c}))`;
  if (/^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|DECIMAL)/.test(type))
    return `sum(${c}::DOUBLE)`;
  if (type === 'BOOLEAN') return `count_if(${c})::DOUBLE`;
  if (type === 'VARCHAR') return `sum(strlen(${c}))::DOUBLE`;
  if (type === 'BLOB') return `sum(octet_length(${c}))::DOUBLE`;
  if (type === 'UUID') return `(count(${c}) * 16)::DOUBLE`;
  if (type === 'DATE') return `sum(${c} - DATE '1970-01-01')::DOUBLE`;
  if (type.startsWith('TIMESTAMP')) return `sum(epoch_us(${c}))::DOUBLE`;
  if (type.startsWith('TIME')) return `sum(epoch_us(${c}))::DOUBLE`;
  return null;
}

function close(a, b) {
  if (a === b) return true;
  const x = Number(a), y = Number(b);
  if (Number.isNaN(x) && Number.isNaN(y)) return true;
  return Math.abs(x - y) <= 1e-6 * Math.max(1, Math.abs(x), Math.abs(y));
}

// hyparquet's rows as the same figures; null when it does not read the file either.
async function hyparquet(file) {
  let rows;
  try {
    rows = await parquetReadObjects({ file: await asyncBufferFromFile(file), compressors, utf8: false });
  } catch (e) {
    return null;
  }
  const names = rows.length ? Object.keys(rows[0]) : [];
  const bytes = (v) => (typeof v === 'string' ? Buffer.byteLength(v) : v.length);
  return { rows: rows.length, columns: names.map((name) => {
    let nulls = 0, nans = 0, figure = 0;
    for (const row of rows) {
      const v = row[name];
      if (v === null || v === undefined) nulls++;
      else if (typeof v === 'number' && Number.isNaN(v)) nans++;
      else if (typeof v === 'number' || typeof v === 'bigint') figure += Number(v);
      else if (typeof v === 'boolean') figure += v ? 1 : 0;
      else figure += bytes(v);
    }
    return { name, nulls, nans, figure };
  }) };
}

// Whether every row's nested columns hold DuckDB's values; an error text when not.
async function nestedMismatch(file, columns) {
  const nested = columns.filter((c) => /^(struct|map)<|^list<(struct|map|list)</.test(c.type));
  if (!nested.length) return null;
  const mine = ember(file, '--nested-rows');
  if (!mine.ok) return `ember --nested-rows: ${mine.error ?? mine.crashed}`;
  const names = nested.map((c) => `"${c.name.replaceAll('"', '""')}"`).join(', ');
  const theirs = (await con.runAndReadAll(`select ${names} from read_parquet('${file}')`)).getRowObjectsJson();
  if (theirs.length !== mine.rows.length) return `${mine.rows.length} nested rows vs ${theirs.length}`;
  for (let r = 0; r < theirs.length; r++) {
    if (!sameJson(mine.rows[r], theirs[r]))
      return `row ${r}: ${JSON.stringify(mine.rows[r]).slice(0, 300)} vs DuckDB ${JSON.stringify(theirs[r]).slice(0, 300)}`;
  }
  return null;
}

async function duckdb(file, fix) {
  try {
    const cols = (await con.runAndReadAll(`describe select * from read_parquet('${file}')`)).getRowsJson();
    const parts = ['count(*)::DOUBLE'];
    for (const [name, type] of cols) {
      const c = `"${name.replaceAll('"', '""')}"`;
      const nans = /^(FLOAT|DOUBLE)/.test(type) ? `count_if(isnan(${c}))::DOUBLE` : '0::DOUBLE';
      parts.push(`(count(*) - count(${c}))::DOUBLE`, figureSql(name, type) ?? 'NULL', nans);
    }
    const where = fix ? `where ${fix.where}` : '';
    const [row] = (await con.runAndReadAll(`select ${parts.join(', ')} from read_parquet('${file}') ${where}`)).getRowsJson();
    const [all] = (await con.runAndReadAll(`select count(*)::DOUBLE from read_parquet('${file}')`)).getRowsJson();
    return { rows: Number(all[0]), columns: cols.map(([name, type], k) => ({
      name, type, nulls: Number(row[1 + 3 * k]), nans: Number(row[3 + 3 * k]),
      figure: fix?.add?.[name] !== undefined ? Number(row[2 + 3 * k]) + fix.add[name] : row[2 + 3 * k] })) };
  } catch (e) {
    return { error: String(e.message).split('\n')[0] };
  }
}

let failures = 0, matched = 0, gaps = 0, duckOnly = 0;
const fail = (msg) => { failures++; console.error(`FAIL ${msg}`); };
for (const name of readdirSync(`${dir}/data`).filter((f) => f.endsWith('.parquet')).sort()) {
  const file = `${dir}/data/${name}`;
  const mine = ember(file);
  let theirs = await duckdb(file, CORRECTIONS[name]);
  if (mine.crashed) { fail(`${name}: ember crashed: ${mine.crashed}`); continue; }
  if (theirs.error) {
    const second = await hyparquet(file);
    if (!second) { duckOnly++; console.log(`${name}: neither DuckDB (${theirs.error}) nor hyparquet reads it; ember: ${mine.ok ? 'read' : mine.error}`); continue; }
    theirs = second;
    theirs.by = 'hyparquet';
  }
  const gap = KNOWN_GAPS[name];
  if (!mine.ok) {
    if (gap && mine.error.includes(gap)) { gaps++; console.log(`${name}: known gap: ${mine.error}`); }
    else fail(`${name}: ember refuses a file ${theirs.by ?? 'DuckDB'} reads: ${mine.error}`);
    continue;
  }
  if (gap) { fail(`${name}: listed as a gap ("${gap}") but ember reads it now: remove it from KNOWN_GAPS`); }
  const bad = [];
  if (mine.rows !== theirs.rows) bad.push(`rows ${mine.rows} vs ${theirs.rows}`);
  if (mine.columns.length !== theirs.columns.length) bad.push(`${mine.columns.length} columns vs ${theirs.columns.length}`);
  else theirs.columns.forEach((d, k) => {
    const e = mine.columns[k];
    if (e.nulls !== d.nulls) bad.push(`${d.name}: ${e.nulls} nulls vs ${d.nulls}`);
    if (e.nans !== d.nans) bad.push(`${d.name}: ${e.nans} NaNs vs ${d.nans}`);
    if (d.figure !== null && !close(e.figure, d.figure)) bad.push(`${d.name} (${e.type} / ${d.type}): ${e.figure} vs ${d.figure}`);
  });
  if (!bad.length && !theirs.by) {
    const why = await nestedMismatch(file, mine.columns);
    if (why) bad.push(`nested values differ: ${why}`);
  }
  if (bad.length) fail(`${name}: ${bad.slice(0, 4).join('; ')}`);
  else { matched++; console.log(`${name}: ${mine.rows} rows, ${mine.columns.length} columns match ${theirs.by ?? 'DuckDB'}`); }
}
for (const name of readdirSync(`${dir}/bad_data`).filter((f) => f.endsWith('.parquet')).sort()) {
  const mine = ember(`${dir}/bad_data/${name}`);
  if (mine.crashed) fail(`bad_data/${name}: ember crashed: ${mine.crashed}`);
  else console.log(`bad_data/${name}: ${mine.ok ? `read, ${mine.rows} rows` : `refused: ${mine.error}`}`);
}
console.log(`${matched} files match DuckDB or hyparquet, ${gaps} known gaps, ${duckOnly} neither reads, ${failures} failures`);
process.exit(failures ? 1 : 0);
