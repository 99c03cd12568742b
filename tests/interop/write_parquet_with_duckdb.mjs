// Writes Parquet files with DuckDB for ember to read: every type ember maps (with nulls), low-
// and high-cardinality strings (dictionary and plain pages), several row groups, each codec,
// and both page versions. Values follow formulas that tests/interop/parquet_expectations.h
// repeats. Usage: node write_parquet_with_duckdb.mjs OUTDIR NPM_DIR [ROWS]
import { createRequire } from 'module';
import { mkdirSync, writeFileSync } from 'fs';

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

// Integers of every annotation at their extremes (min, max, 0, null) and TIME, beside them
// (OUTDIR/../integers/): extremes.parquet and extremes.txt, DuckDB's own reading of it as text
// (a header line, then one tab-separated line per row; TIME in microseconds since midnight);
// and overflow.parquet, whose UBIGINT 2^64 - 1 does not fit in ember's int64.
const intDir = `${outDir}/../integers`;
mkdirSync(intDir, { recursive: true });
const cols = ['i8', 'i16', 'i32', 'i64', 'u8', 'u16', 'u32', 'u64', 't'];
await con.run(`copy (select * from (values
    ((-128)::TINYINT, (-32768)::SMALLINT, (-2147483648)::INTEGER, (-9223372036854775808)::BIGINT,
     0::UTINYINT, 0::USMALLINT, 0::UINTEGER, 0::UBIGINT, '00:00:00'::TIME),
    (127::TINYINT, 32767::SMALLINT, 2147483647::INTEGER, 9223372036854775807::BIGINT,
     255::UTINYINT, 65535::USMALLINT, 4294967295::UINTEGER, 9223372036854775807::UBIGINT,
     '23:59:59.999999'::TIME),
    (0::TINYINT, 0::SMALLINT, 0::INTEGER, 0::BIGINT, 1::UTINYINT, 1::USMALLINT, 1::UINTEGER,
     1::UBIGINT, '12:34:56.789012'::TIME),
    (null, null, null, null, null, null, null, null, null)) v(${cols.join(', ')}))
  to '${intDir}/extremes.parquet' (format parquet)`);
const text = (c) => c === 't' ? `coalesce(epoch_us(date '1970-01-01' + t)::VARCHAR, 'null')`
                             : `coalesce(${c}::VARCHAR, 'null')`;
const read = await con.runAndReadAll(
    `select ${cols.map(text).join(` || chr(9) || `)} from '${intDir}/extremes.parquet'`);
writeFileSync(`${intDir}/extremes.txt`,
              [cols.join('\t'), ...read.getRows().map((r) => r[0])].join('\n') + '\n');
await con.run(`copy (select 18446744073709551615::UBIGINT as u) to '${intDir}/overflow.parquet'
  (format parquet)`);
