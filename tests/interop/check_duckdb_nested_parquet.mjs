// Nested Parquet files written by DuckDB, read by ember: DuckDB writes STRUCT, MAP, lists of
// lists three deep, lists of structs, and structs holding lists, dates, floats and maps, with
// nulls and empty lists at every level, in each codec; ember (RUNNER --nested-rows, which prints
// every row's nested columns as DuckDB renders them in JSON) must read every value DuckDB reads
// back from the same file, and the runner's flat figures must agree on the row count.
// Usage: node check_duckdb_nested_parquet.mjs OUT_DIR RUNNER NPM_DIR
import { spawnSync } from 'child_process';
import { createRequire } from 'module';
import { mkdirSync } from 'fs';
import { sameJson } from './same_json.mjs';

const [out, runner, npmDir] = process.argv.slice(2);
const require = createRequire(npmDir + '/');
const { DuckDBInstance } = require('@duckdb/node-api');
const con = await (await DuckDBInstance.create(':memory:')).connect();
mkdirSync(out, { recursive: true });

// Every expression is null one row in seven, and its parts null or empty on other rows.
const nested = `
  case when i % 7 = 0 then null else {'bytes': ('img' || i)::BLOB, 'path': case when i % 5 = 0 then null else 'p/' || i || '.png' end} end as image,
  case when i % 6 = 0 then null else {'a': i, 'b': case when i % 4 = 0 then null else [i::FLOAT / 4, null, 2.5::FLOAT] end, 'day': DATE '2024-02-28' + (i % 3)::INTEGER} end as s,
  case when i % 9 = 0 then null when i % 9 = 1 then [] else [[i::INTEGER, null], [], null, [i::INTEGER * 2]] end as ll,
  case when i % 8 = 0 then null else [[['a' || i, null], []], null, [['b']]] end as lll,
  case when i % 5 = 0 then null when i % 5 = 1 then map([], []) else map(['k' || (i % 3), 'z'], [i, null]) end as m,
  case when i % 4 = 0 then null else [{'x': i, 'y': 'y' || i}, null, {'x': null, 'y': null}] end as pts,
  case when i % 3 = 0 then null else {'inner': {'v': case when i % 2 = 0 then null else i * 1.5 end, 'tags': ['t', 'u' || i]}, 'attrs': map(['w'], [i::INTEGER])} end as deep`;

let failures = 0;
const fail = (msg) => { failures++; console.error(`FAIL ${msg}`); };

for (const codec of ['snappy', 'zstd', 'uncompressed']) {
  const file = `${out}/duckdb-nested-${codec}.parquet`;
  await con.run(`copy (select i::BIGINT as id, ${nested} from range(3000) r(i))
                 to '${file}' (format parquet, compression ${codec}, row_group_size 1000)`);
  const r = spawnSync(runner, ['--nested-rows', file], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0 || !r.stdout.trim()) { fail(`${codec}: runner status ${r.status}: ${r.stderr.slice(-300)}`); continue; }
  const mine = JSON.parse(r.stdout.trim());
  if (!mine.ok) { fail(`${codec}: ember refuses DuckDB's file: ${mine.error}`); continue; }
  // The blob is compared as DuckDB's JSON renders it; ember renders binary as hex, so the
  // image's bytes are compared by the text it was made from.
  const theirs = (await con.runAndReadAll(
    `select case when image is null then null
                 else {'bytes': decode(image.bytes), 'path': image.path} end as image,
            s, ll, lll, m, pts, deep
     from read_parquet('${file}')`)).getRowObjectsJson();
  if (theirs.length !== mine.rows.length) { fail(`${codec}: ${mine.rows.length} rows vs ${theirs.length}`); continue; }
  let bad = 0;
  for (let k = 0; k < theirs.length; k++) {
    const row = mine.rows[k];
    if (row.image && row.image.bytes !== null) {
      const hex = row.image.bytes.slice(2);
      row.image.bytes = Buffer.from(hex, 'hex').toString('utf8');
    }
    if (!sameJson(row, theirs[k])) {
      if (bad++ < 3) fail(`${codec} row ${k}: ${JSON.stringify(row).slice(0, 400)} vs DuckDB ${JSON.stringify(theirs[k]).slice(0, 400)}`);
    }
  }
  if (!bad) console.log(`${codec}: ${theirs.length} rows, every nested value matches DuckDB`);
}
process.exit(failures ? 1 : 0);
