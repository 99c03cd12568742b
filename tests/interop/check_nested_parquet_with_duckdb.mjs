// DuckDB reads ember's nested Parquet output (DIR/nested*/part-*.parquet, written by
// nested_parquet_writer.cpp) and every row must equal the one ember wrote (DIR/expected.jsonl,
// rendered as DuckDB's JSON conversion renders values); the columns must come back as the
// nested types ember wrote, not as lists of structs or text.
// Usage: node check_nested_parquet_with_duckdb.mjs DIR NPM_DIR
import { createRequire } from 'module';
import { readFileSync, readdirSync } from 'fs';

const [dir, npmDir] = process.argv.slice(2);
const require = createRequire(npmDir + '/');
const { DuckDBInstance } = require('@duckdb/node-api');
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();

const expected = readFileSync(`${dir}/expected.jsonl`, 'utf8').trimEnd().split('\n').map(JSON.parse);
const types = {
  id: 'BIGINT',
  img: 'STRUCT(bytes BLOB, path VARCHAR)',
  rec: 'STRUCT(a BIGINT, b FLOAT[])',
  ll: 'INTEGER[][]',
  lll: 'VARCHAR[][][]',
  counts: 'MAP(VARCHAR, BIGINT)',
  pts: 'STRUCT(x BIGINT, y VARCHAR)[]',
  stats: 'MAP(VARCHAR, STRUCT(n BIGINT, tags VARCHAR[]))',
};

// Filters on struct fields, which DuckDB may answer from the leaves' statistics: the count must
// be what the values say.
const filters = [
  ['rec.a between 1234567890120 and 2469135780240',
   (r) => r.rec !== null && r.rec.a !== null && BigInt(r.rec.a) >= 1234567890120n &&
          BigInt(r.rec.a) <= 2469135780240n],
  ["img.path = 'dir/68888\u00e9.png'", (r) => r.img !== null && r.img.path === 'dir/68888\u00e9.png'],
  ['rec.a is null', (r) => r.rec === null || r.rec.a === null],
];

let failures = 0;
const outputs = readdirSync(dir).filter((d) => d.startsWith('nested'));
for (const output of outputs) {
  const files = `'${dir}/${output}/part-*.parquet'`;
  const described = (await con.runAndReadAll(`describe select * from ${files}`)).getRowObjects();
  for (const { column_name, column_type } of described) {
    if (types[column_name] !== column_type) {
      console.error(`${output}: column ${column_name} is ${column_type}, want ${types[column_name]}`);
      failures++;
    }
  }
  const rows = (await con.runAndReadAll(`select * from ${files} order by id`)).getRowObjectsJson();
  let mismatches = 0;
  if (rows.length !== expected.length) {
    console.error(`${output}: DuckDB read ${rows.length} rows, ember wrote ${expected.length}`);
    mismatches++;
  }
  for (let i = 0; i < Math.min(rows.length, expected.length); i++) {
    for (const column of Object.keys(types)) {
      const got = JSON.stringify(rows[i][column]), want = JSON.stringify(expected[i][column]);
      if (got === want) continue;
      if (mismatches++ < 10) console.error(`${output} row ${i} ${column}: DuckDB read ${got}, ember wrote ${want}`);
    }
  }
  for (const [where, keep] of filters) {
    const got = (await con.runAndReadAll(`select count(*) from ${files} where ${where}`)).getRows()[0][0];
    const want = expected.filter(keep).length;
    if (Number(got) !== want) {
      console.error(`${output}: ${where}: DuckDB counts ${got} rows, the values ${want}`);
      mismatches++;
    }
  }
  const groups = (await con.runAndReadAll(
      `select count(distinct (file_name, row_group_id)) from parquet_metadata(${files})`)).getRows()[0][0];
  console.log(`${output}: DuckDB read ${rows.length} rows in ${groups} row groups, ` +
              `${mismatches} mismatched values` + (mismatches ? '  <-- MISMATCH' : ''));
  failures += mismatches;
}
if (outputs.length === 0) failures++;
if (failures) {
  console.error(`${failures} check(s) failed`);
  process.exit(1);
}
console.log('DuckDB reads every nested value ember wrote');
