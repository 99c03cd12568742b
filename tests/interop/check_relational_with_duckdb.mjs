// Compares ember's relational results (written by relational_runner) with DuckDB's answers on
// the same CSV files: as multisets, and row by row where the order is defined (sort, top_k,
// group-by and distinct, whose output is sorted by key). Usage: node ... OUTDIR NPM_DIR
import { createRequire } from 'module';

const [dir, npmDir] = process.argv.slice(2);
const require = createRequire(npmDir + '/');
const { DuckDBInstance } = require('@duckdb/node-api');

const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
await con.run(`create table fact as select * from read_csv('${dir}/fact.csv', header=true,
  columns={'id':'BIGINT','k':'BIGINT','s':'VARCHAR','v':'DOUBLE','w':'BIGINT'})`);
await con.run(`create table dim as select * from read_csv('${dir}/dim.csv', header=true,
  columns={'k':'BIGINT','s':'VARCHAR','label':'VARCHAR','weight':'BIGINT'})`);

const factCols = {id: 'BIGINT', k: 'BIGINT', s: 'VARCHAR', v: 'DOUBLE', w: 'BIGINT'};
const joinCols = {...factCols, label: 'VARCHAR', weight: 'BIGINT'};
const on = 'f.k = d.k and f.s = d.s';
const checks = {
  group_by: {
    cols: {k: 'BIGINT', s: 'VARCHAR', sum_v: 'DOUBLE', n_v: 'BIGINT', min_v: 'DOUBLE',
           max_v: 'DOUBLE', mean_v: 'DOUBLE', nd_w: 'BIGINT', first_w: 'BIGINT', rows: 'BIGINT'},
    sql: `select k, s, sum(v), count(v), min(v), max(v), avg(v), count(distinct w),
          first(w order by id), count(*) from fact group by k, s
          order by k asc nulls last, s asc nulls last`,
    ordered: true,
  },
  sort: {cols: factCols, ordered: true,
         sql: 'select * from fact order by k desc nulls first, s asc nulls last, id'},
  top_k: {cols: factCols, ordered: true,
          sql: 'select * from fact order by v desc nulls last, id limit 100'},
  distinct: {cols: factCols, ordered: false,
             sql: 'select distinct on (k, s) * from fact order by k, s, id'},
  distinct_all: {cols: {s: 'VARCHAR', w: 'BIGINT'}, ordered: true,
                 sql: 'select distinct s, w from fact order by s asc nulls last, w asc nulls last'},
  join_inner: {cols: joinCols, sql: `select f.*, d.label, d.weight from fact f join dim d on ${on}`},
  join_left: {cols: joinCols, sql: `select f.*, d.label, d.weight from fact f left join dim d on ${on}`},
  join_right: {cols: joinCols,
               sql: `select f.id, coalesce(f.k, d.k), coalesce(f.s, d.s), f.v, f.w, d.label, d.weight
                     from fact f right join dim d on ${on}`},
  join_full: {cols: joinCols,
              sql: `select f.id, case when f.id is null then d.k else f.k end,
                    case when f.id is null then d.s else f.s end, f.v, f.w, d.label, d.weight
                    from fact f full join dim d on ${on}`},
  join_semi: {cols: factCols, sql: `select * from fact f where exists (select 1 from dim d where ${on})`},
  join_anti: {cols: factCols, sql: `select * from fact f where not exists (select 1 from dim d where ${on})`},
};

// Rows as strings, cells joined by '|'.
function render(rows) {
  return rows.map(r => r.map(v => (v === null ? 'null' : String(v))).join('|'));
}

// Equal rows, but float sums may differ in their last bits (summation order differs).
function sameRow(a, b) {
  if (a === b) return true;
  const x = a.split('|'), y = b.split('|');
  if (x.length !== y.length) return false;
  return x.every((c, i) => c === y[i] ||
    (!isNaN(Number(c)) && !isNaN(Number(y[i])) &&
     Math.abs(Number(c) - Number(y[i])) <= 1e-9 * Math.max(1, Math.abs(Number(c)))));
}

let failures = 0;
for (const [name, c] of Object.entries(checks)) {
  const want = render((await con.runAndReadAll(c.sql)).getRows());
  for (const t of [1, 2, 4]) {
    const cols = Object.entries(c.cols).map(([k, v]) => `'${k}':'${v}'`).join(',');
    const got = render((await con.runAndReadAll(
        `select * from read_csv('${dir}/${name}_t${t}/part-*.csv', header=true, columns={${cols}})`)).getRows());
    const a = c.ordered ? got : [...got].sort(), b = c.ordered ? want : [...want].sort();
    let bad = a.length !== b.length ? `${a.length} rows, DuckDB ${b.length}` : '';
    for (let i = 0; !bad && i < a.length; i++)
      if (!sameRow(a[i], b[i])) bad = `row ${i}: ember ${a[i]} | DuckDB ${b[i]}`;
    if (bad) {
      console.error(`${name} (${t} threads): ${bad}`);
      failures++;
    } else {
      console.log(`${name} (${t} threads): ${a.length} rows match`);
    }
  }
}
process.exit(failures ? 1 : 0);
