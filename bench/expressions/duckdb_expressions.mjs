// DuckDB's side of the expression benchmark: the same generated tables (same formulas as
// expressions_bench.cpp), the same five queries, with the same number of threads.
//   node duckdb_expressions.mjs NPM_DIR [ROWS] [EMBEDDINGS] [THREADS] [REPEAT]
import { createRequire } from 'module';
import path from 'path';

const [npm, rows = '10000000', embeddings = '100000', threads = '2', repeat = '3'] = process.argv.slice(2);
const require = createRequire(path.resolve(npm) + '/');
const { DuckDBInstance } = require('@duckdb/node-api');

const inst = await DuckDBInstance.create(':memory:', { threads });
const con = await inst.connect();
await con.run(`create table t as select
  'doc ' || ((i * 2654435761) % 100000)::VARCHAR || case when i % 7 = 0 then ' Refund' else ' ok' end as s,
  (((i * 31) % 1000) / 10.0)::DOUBLE as v,
  make_timestamp(((i % 1000000) * 3600 * 1000000 * 7 // 10)::BIGINT) as ts
  from range(${rows}) r(i)`);
await con.run(`create table e as select i as id,
  list_transform(range(384), j -> (((i * 31 + j * 17) % 97) / 97.0)::FLOAT)::FLOAT[384] as emb
  from range(${embeddings}) r(i)`);
const query = `list_transform(range(384), j -> (((j * 13) % 89) / 89.0)::FLOAT)::FLOAT[384]`;

const queries = {
  lower_contains_filter: `select count(*) n from t where contains(lower(s), 'refund')`,
  split_explode: 'select count(*) n from (select unnest(string_split(s, \' \')) w from t)',
  when_chain: `select case when v < 10 then 'a' when v < 50 then 'b' when v < 90 then 'c' else 'd' end b,
               count(*) n from t group by b order by b`,
  dt_year_group_by: 'select year(ts) y, count(*) n from t group by y order by y',
  cosine_top_10: `select id from e order by array_cosine_similarity(emb, ${query}) desc, id limit 10`,
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
  console.log(JSON.stringify({ system: 'duckdb', query: name, seconds: times[Math.floor(times.length / 2)],
                               check: `${n}:${first}` }));
}
console.log(JSON.stringify({ system: 'duckdb', peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024) }));
