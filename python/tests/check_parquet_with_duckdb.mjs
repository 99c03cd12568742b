// DuckDB reads Parquet files ember wrote and prints what the Python tests compare: the row
// count, distinct ids, and the rows per value of a column, as one JSON line.
// Usage: node check_parquet_with_duckdb.mjs GLOB COLUMN NPM_DIR
import { createRequire } from 'module';

const [glob, column, npmDir] = process.argv.slice(2);
const require = createRequire(npmDir + '/');
const { DuckDBInstance } = require('@duckdb/node-api');
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const rows = async (sql) => (await con.runAndReadAll(sql)).getRows();

const [[count, ids]] = await rows(`select count(*), count(distinct id) from '${glob}'`);
const groups = await rows(
    `select ${column}, count(*) from '${glob}' group by ${column} order by ${column}`);
console.log(JSON.stringify({
  rows: Number(count),
  distinct_ids: Number(ids),
  counts: Object.fromEntries(groups.map(([k, n]) => [String(k), Number(n)])),
}));
