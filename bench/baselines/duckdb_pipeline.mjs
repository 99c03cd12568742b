// DuckDB (through its node package) on the pipeline workload without the UDF:
// scan -> filter -> project -> aggregate, with the same number of threads as ember's workers.
//   node duckdb_pipeline.mjs --input FILE --npm NPM_DIR [--workers 2] [--repeat 3]
import { createRequire } from 'module';
import { parseArgs } from 'util';
import path from 'path';

const { values: opt } = parseArgs({
  options: {
    input: { type: 'string' },
    npm: { type: 'string' },
    workers: { type: 'string', default: '2' },
    repeat: { type: 'string', default: '3' },
  },
});
if (!opt.input || !opt.npm) {
  console.error('usage: duckdb_pipeline.mjs --input FILE --npm NPM_DIR [--workers N] [--repeat N]');
  process.exit(2);
}
const require = createRequire(path.resolve(opt.npm) + '/');
const { DuckDBInstance } = require('@duckdb/node-api');

// The filter and projection of bench/workloads/workload_options.h (kMaxX, kSkippedCategory).
const sql = `select category, count(*) as n, sum(z) as sum_z from (
    select id, category, y * 2 + 1 as z, text
    from read_csv('${opt.input.replaceAll("'", "''")}', header = true)
    where x < 0.3 and category <> 'cat_03')
  group by category order by category`;

const times = [];
let rows = [];
for (let i = 0; i < Number(opt.repeat); i++) {
  // A fresh in-memory database per run: no cached state carries over between runs.
  const t0 = process.hrtime.bigint();
  const instance = await DuckDBInstance.create(':memory:', { threads: opt.workers });
  const con = await instance.connect();
  rows = (await con.runAndReadAll(sql)).getRowObjects();
  times.push(Number(process.hrtime.bigint() - t0) / 1e9);
  con.closeSync?.();
}
const check = {};
for (const r of rows) {
  check[`${r.category}.count`] = Number(r.n);
  check[`${r.category}.sum_z`] = Number(r.sum_z);
}
console.log(JSON.stringify({ system: 'duckdb', workload: 'pipeline-noudf', times, check,
                             notes: `DuckDB threads=${opt.workers}` }));
