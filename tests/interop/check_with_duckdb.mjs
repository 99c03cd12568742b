// Reads ember's CSV and JSON-lines output with DuckDB and checks every value against the
// formulas of interop_writer.cpp. Usage: node check_with_duckdb.mjs OUTDIR NPM_DIR
import { createRequire } from 'module';

const [outDir, npmDir] = process.argv.slice(2);
const require = createRequire(npmDir + '/');
const { DuckDBInstance } = require('@duckdb/node-api');

function tricky(i) {
  switch (i % 6) {
    case 0: return `plain ${i}`;
    case 1: return `comma, here ${i}`;
    case 2: return `quote " inside ${i}`;
    case 3: return `new\nline ${i}`;
    case 4: return `caf\u00e9 \u2603 ${i}`;
    default: return `  padded ${i}  `;
  }
}

function expected(i) {
  return {
    id: i,
    x: i % 7 === 0 ? null : i * 1.5 + 0.25,
    s: i % 11 === 0 ? null : tricky(i),
    b: i % 13 === 0 ? null : i % 2 === 0,
    y: i * 3,
  };
}

const N = 3000;
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const queries = {
  csv: `select id, x, s, b, y from read_csv('${outDir}/csv/part-*.csv', header=true, ` +
       `columns={'id':'BIGINT','x':'DOUBLE','s':'VARCHAR','b':'BOOLEAN','y':'BIGINT'}) order by id`,
  jsonl: `select id, x, s, b, y from read_json('${outDir}/jsonl/part-*.jsonl', format='newline_delimited', ` +
         `columns={'id':'BIGINT','x':'DOUBLE','s':'VARCHAR','b':'BOOLEAN','y':'BIGINT'}) order by id`,
};
let failures = 0;
for (const [fmt, sql] of Object.entries(queries)) {
  const rows = (await con.runAndReadAll(sql)).getRowObjects();
  if (rows.length !== N) {
    console.error(`${fmt}: expected ${N} rows, DuckDB read ${rows.length}`);
    failures++;
    continue;
  }
  for (let i = 0; i < N; i++) {
    const got = rows[i], want = expected(i);
    for (const k of Object.keys(want)) {
      let g = got[k];
      if (typeof g === 'bigint') g = Number(g);
      if (g !== want[k]) {
        if (failures < 20) console.error(`${fmt}: row ${i} column ${k}: got ${JSON.stringify(g)}, want ${JSON.stringify(want[k])}`);
        failures++;
      }
    }
  }
  console.log(`${fmt}: DuckDB read ${rows.length} rows`);
}
if (failures) {
  console.error(`${failures} mismatches`);
  process.exit(1);
}
console.log('DuckDB agrees with ember on every value');
