// DuckDB's side of the Parquet benchmark, and the generator of its input.
//   node duckdb_parquet.mjs NPM_DIR generate FILE ROWS
//       writes FILE: ROWS rows, 8 columns of mixed types, Snappy, DuckDB's default row groups
//   node duckdb_parquet.mjs NPM_DIR generate-nested FILE ROWS
//       writes FILE: ROWS rows of an id, an image struct<bytes, path> and a list<float> embedding
//   node duckdb_parquet.mjs NPM_DIR run FILE OUT_DIR THREADS REPEAT [nested]
//       aggregates every column of FILE (flat file only), reads it into memory and writes it
//       back (COPY TO, Snappy), REPEAT times each; prints one JSON line per operation with the
//       median seconds and a check of what was read
import { createRequire } from 'module';
import path from 'path';

const [npm, mode, file, ...rest] = process.argv.slice(2);
const require = createRequire(path.resolve(npm) + '/');
const { DuckDBInstance } = require('@duckdb/node-api');

if (mode === 'generate-nested') {
  // Image-dataset rows: struct<bytes: 512 pseudo-random bytes, path>, a 64-float embedding.
  const con = await (await DuckDBInstance.create(':memory:')).connect();
  await con.run(`copy (select i::BIGINT as id,
      {'bytes': unhex(array_to_string(list_transform(range(32), x -> md5((i * 32 + x)::VARCHAR)), '')),
       'path': 'images/' || (i % 1000) || '/' || i || '.jpg'} as image,
      list_transform(range(64), x -> ((hash(i * 64 + x) % 2000) / 1000.0 - 1)::FLOAT) as embedding
    from range(${rest[0]}) r(i)) to '${file}' (format parquet, compression snappy)`);
  process.exit(0);
}

if (mode === 'generate') {
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  // A nullable int (a tenth null), a DECIMAL, a FLOAT, dictionary-encoded and plain strings.
  await con.run(`copy (select i::BIGINT as id,
      case when hash(i * 11) % 10 = 0 then null else (hash(i) % 1000)::INTEGER end as qty,
      ((hash(i * 3) % 10000000) / 100.0)::DECIMAL(12, 2) as price,
      ((hash(i * 5) % 100000) / 1000.0)::FLOAT as score,
      'category-' || (i % 20) as category, 'user-' || (hash(i * 7) % 100000000) as name,
      timestamp '2024-01-01' + to_microseconds(i * 1000) as ts, hash(i) % 3 = 0 as flag
    from range(${rest[0]}) r(i)) to '${file}' (format parquet, compression snappy)`);
  process.exit(0);
}

const [outDir, threads, repeat] = rest;
const inst = await DuckDBInstance.create(':memory:', { threads });
const con = await inst.connect();
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function timed(sql) {
  const times = [];
  for (let r = 0; r < Number(repeat); r++) {
    const t0 = process.hrtime.bigint();
    await con.run(sql);
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  return median(times);
}
const nested = rest[3] === 'nested';
if (!nested) {
  // Every column aggregated straight from the file: what a scan costs, with nothing kept.
  const scanSql = `select count(*), sum(id), sum(qty), sum(price), sum(score), count(category),
      count(name), max(ts), count_if(flag) from read_parquet('${file}')`;
  const scan = await timed(scanSql);
  const row = (await con.runAndReadAll(scanSql)).getRows()[0];
  const check = [row[0], row[1], row[2]].join(':');
  console.log(JSON.stringify({ system: 'duckdb', op: 'scan', seconds: scan, check }));
}
const read = await timed(`create or replace table t as select * from read_parquet('${file}')`);
const checkSql = nested
  ? 'select count(*), sum(octet_length(image.bytes)), sum(len(embedding)) from t'
  : 'select count(*), sum(id), sum(qty) from t';
const check = (await con.runAndReadAll(checkSql)).getRows()[0].join(':');
console.log(JSON.stringify({ system: 'duckdb', op: 'read', seconds: read, check }));
const write = await timed(`copy t to '${outDir}/duckdb.parquet' (format parquet, compression snappy)`);
console.log(JSON.stringify({ system: 'duckdb', op: 'write', seconds: write }));
