// Writes Parquet files with DuckDB for ember to read: every type ember maps (with nulls), low-
// and high-cardinality strings (dictionary and plain pages), several row groups, each codec,
// and both page versions. Values follow formulas that tests/interop/parquet_expectations.h
// repeats. Usage: node write_parquet_with_duckdb.mjs OUTDIR NPM_DIR [ROWS]
import { createRequire } from 'module';

const [outDir, npmDir, rowsArg] = process.argv.slice(2);
const require = createRequire(npmDir + '/');
const { DuckDBInstance } = require('@duckdb/node-api');
const rows = Number(rowsArg ?? 10000);

const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
await con.run(`create table t as select
    i::BIGINT as id,
    case when i % 7 = 0 then null else (i * 3 - 100)::INTEGER end as i32,
    case when i % 5 = 0 then null else i * 1.5 end as f64,
    (i / 4.0)::FLOAT as f32,
    case when i % 11 = 0 then null else 'word' || (i % 13) end as s,
    'unique-' || i as u,
    case when i % 17 = 0 then null else i % 3 = 0 end as b,
    timestamp '2024-01-01' + to_seconds(i) as ts,
    (i % 100)::SMALLINT as i16,
    ((i % 1000) / 100)::DECIMAL(10, 2) as dec,
    date '2024-01-01' + (i % 30)::INTEGER as d,
    encode('b' || i)::BLOB as bin,
    case when i % 4 = 0 then null else list_transform(range(i % 4), x -> x * i) end as xs,
    case when i % 6 = 0 then null else ['t' || (i % 3), null, 'u' || i] end as tags,
    [i * 1.0, i * 2.0, null]::FLOAT[] as emb
  from range(${rows}) r(i)`);
const variants = [
  ['zstd', 'zstd', ''], ['snappy', 'snappy', ''], ['uncompressed', 'uncompressed', ''],
  ['gzip', 'gzip', ''], ['lz4_raw', 'lz4_raw', ''], ['zstd_v2', 'zstd', ", parquet_version 'v2'"],
];
for (const [name, codec, extra] of variants) {
  await con.run(`copy t to '${outDir}/${name}.parquet' ` +
                `(format parquet, compression ${codec}, row_group_size 2048${extra})`);
}
console.log(`wrote ${variants.length} files of ${rows} rows to ${outDir}`);
