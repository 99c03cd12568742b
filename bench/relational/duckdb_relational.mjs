// DuckDB's side of the relational benchmark: the same generated tables (same formulas as
// relational_bench.cpp), the same four queries, with the same number of threads.
//   node duckdb_relational.mjs NPM_DIR [ROWS] [DIM_ROWS] [THREADS] [REPEAT]
import { createRequire } from 'module';
import path from 'path';

const [npm, rows = '10000000', dimRows = '100000', threads = '2', repeat = '3'] = process.argv.slice(2);
const require = createRequire(path.resolve(npm) + '/');
const { DuckDBInstance } = require('@duckdb/node-api');

const inst = await DuckDBInstance.create(':memory:', { threads });
const con = await inst.connect();
await con.run(`create table fact as select i as id, (i * 2654435761) % 1000 as k1, i % 7 as k2,
  (i * 40503) % ${dimRows} as dk, (((i * 31) % 1000) / 10.0)::DOUBLE as v, i % 100 as w
  from range(${rows}) t(i)`);
await con.run(`create table dim as select i as dk, i % 50 as grp from range(${dimRows}) t(i)`);

// Results are materialised as tables, as ember's collect() materialises them.
const queries = {
  group_by_2keys_3aggs: 'select k1, sum(v) s, count(v) n, max(w) m from fact group by k1, k2 order by k1, k2',
  join_then_group_by: 'select grp, sum(v) s from fact join dim using (dk) group by grp order by grp',
  sort: 'select * from fact order by v desc, id',
  top_100: 'select * from fact order by v desc, id limit 100',
};
for (const [name, sql] of Object.entries(queries)) {
  const times = [];
  for (let r = 0; r < Number(repeat); r++) {
    const t0 = process.hrtime.bigint();
    await con.run(`create or replace temp table result as ${sql}`);
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  times.sort((a, b) => a - b);
  const n = Number((await con.runAndReadAll('select count(*) from result')).getRows()[0][0]);
  const first = (await con.runAndReadAll('select * from result limit 1')).getRows()[0][0];
  const last = (await con.runAndReadAll(`select * from result offset ${n - 1}`)).getRows()[0][0];
  console.log(JSON.stringify({ system: 'duckdb', query: name, seconds: times[Math.floor(times.length / 2)],
                               check: `${n}:${first}:${last}` }));
}
console.log(JSON.stringify({ system: 'duckdb', peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024) }));
