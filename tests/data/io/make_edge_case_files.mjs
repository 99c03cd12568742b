// Writes the small edge-case files under tests/data/io/ (checked in; rerun only to change
// them): integers of every width at their extremes, an unsigned 64-bit value above 2^63 - 1,
// TIME, and two columns of one name, as DuckDB writes Parquet and npm apache-arrow writes
// Arrow IPC. The tests in tests/io/ read them; tests/fuzz/corpus/ holds copies as seeds.
// Usage (from the repository root, after scripts/install-deps.sh):
//   node tests/data/io/make_edge_case_files.mjs tests/data/io .cache/npm
import { createRequire } from 'module';
import { readFileSync, writeFileSync } from 'fs';
import { resolve } from 'path';

const [outDir, npmDir] = process.argv.slice(2);
const require = createRequire(resolve(npmDir) + '/');
const { DuckDBInstance } = require('@duckdb/node-api');
const A = require('apache-arrow');

const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const parquet = (name, sql) => con.run(`copy (${sql}) to '${outDir}/parquet/${name}' (format parquet)`);

// Rows: minimum, maximum, zero, null (DuckDB's UBIGINT maximum stops at 2^63 - 1 here).
await parquet('duckdb_integer_extremes.parquet', `
  select * from (values
    ((-128)::TINYINT, (-32768)::SMALLINT, (-2147483648)::INTEGER, (-9223372036854775808)::BIGINT,
     0::UTINYINT, 0::USMALLINT, 0::UINTEGER, 0::UBIGINT),
    (127::TINYINT, 32767::SMALLINT, 2147483647::INTEGER, 9223372036854775807::BIGINT,
     255::UTINYINT, 65535::USMALLINT, 4294967295::UINTEGER, 9223372036854775807::UBIGINT),
    (0::TINYINT, 0::SMALLINT, 0::INTEGER, 0::BIGINT,
     1::UTINYINT, 1::USMALLINT, 1::UINTEGER, 1::UBIGINT),
    (null, null, null, null, null, null, null, null))
  t(i8, i16, i32, i64, u8, u16, u32, u64)`);
await parquet('duckdb_uint64_overflow.parquet', `
  select * from (values (1::BIGINT, 5::UBIGINT), (2, 18446744073709551615::UBIGINT), (3, null))
  t(id, u)`);
await parquet('duckdb_time.parquet', `
  select * from (values ('00:00:00'::TIME), ('12:34:56.789012'::TIME), ('23:59:59.999999'::TIME),
                        (null)) t(t)`);
// DuckDB renames a repeated name when it writes, so the file gets two distinct names of one
// length, then the second is renamed to the first in the footer (names are not checksummed).
await parquet('duplicate_names.parquet', `select 1::BIGINT as dupname_x, 2::BIGINT as dupname_y`);
{
  const path = `${outDir}/parquet/duplicate_names.parquet`;
  const bytes = readFileSync(path).toString('latin1').replaceAll('dupname_y', 'dupname_x');
  writeFileSync(path, Buffer.from(bytes, 'latin1'));
}

// Arrow IPC: each integer width, signed and unsigned, at its extremes (with a null row).
const ints = {
  i8: [new A.Int8(), [-128, 127, 0, null]],
  i16: [new A.Int16(), [-32768, 32767, 0, null]],
  i32: [new A.Int32(), [-2147483648, 2147483647, 0, null]],
  i64: [new A.Int64(), [-9223372036854775808n, 9223372036854775807n, 0n, null]],
  u8: [new A.Uint8(), [0, 255, 1, null]],
  u16: [new A.Uint16(), [0, 65535, 1, null]],
  u32: [new A.Uint32(), [0, 4294967295, 1, null]],
  u64: [new A.Uint64(), [0n, 9223372036854775807n, 1n, null]],
};
const arrow = (name, fields, columns) => {
  const schema = new A.Schema(fields);
  const data = columns.map((v, k) => A.vectorFromArray(v, fields[k].type).data[0]);
  const batch = new A.RecordBatch(schema, A.makeData({
    type: new A.Struct(fields), length: columns[0].length, nullCount: 0, children: data }));
  writeFileSync(`${outDir}/arrow/${name}`, A.tableToIPC(new A.Table([batch]), 'file'));
};
arrow('integer_extremes.arrow', Object.entries(ints).map(([n, [t]]) => new A.Field(n, t, true)),
      Object.values(ints).map(([, v]) => v));
arrow('uint64_overflow.arrow', [new A.Field('id', new A.Int64(), true), new A.Field('u', new A.Uint64(), true)],
      [[1n, 2n, 3n], [5n, 18446744073709551615n, null]]);
arrow('duplicate_names.arrow', [new A.Field('x', new A.Int64(), true), new A.Field('x', new A.Int64(), true)],
      [[1n], [2n]]);
console.log(`wrote the edge-case files under ${outDir}`);
