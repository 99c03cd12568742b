// Compares every function of ember's expression library (written by function_runner) with its
// DuckDB equivalent over the same Parquet input, value by value. A check's `where` limits it to
// the rows where DuckDB's function is defined the same way (e.g. DuckDB raises an error for the
// square root of a negative number, where ember gives NaN); docs/expressions.md lists those
// differences. Usage: node ... OUTDIR NPM_DIR
import { createRequire } from 'module';

const [dir, npmDir] = process.argv.slice(2);
const require = createRequire(npmDir + '/');
const { DuckDBInstance } = require('@duckdb/node-api');

const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
await con.run(`create table t as select * from read_parquet('${dir}/input/*.parquet')`);
await con.run(`create table e as select * from read_parquet('${dir}/output/*.parquet')`);

const ws = `' ' || chr(9) || chr(10) || chr(11) || chr(12) || chr(13)`;
const notNaN = (c) => `not isnan(${c})`;
// name: [DuckDB expression over t, rows where it applies (optional), how to compare]
const checks = {
  str_length: ['length(s)'], str_lower: ['lower(s)'], str_upper: ['upper(s)'],
  str_contains: [`contains(s, 'a')`], str_starts_with: [`starts_with(s, 'B')`],
  str_ends_with: [`suffix(s, 'é')`], str_replace: [`replace(s, 'a', 'XY')`],
  str_split: [`string_split(s, ',')`], str_slice: ['substring(s, 2, 3)'],
  str_strip: [`trim(s, ${ws})`], str_pad: [`lpad(s, 6, '*')`, 'length(s) <= 6'],
  str_pad_end: [`rpad(s, 6, 'é')`, 'length(s) <= 6'], concat: [`s || '-' || upper(s)`],
  str_match: [`regexp_matches(s, '[0-9]+')`],
  str_extract: [`regexp_extract(s, '([a-zé]+)([0-9])', 2)`, `regexp_matches(s, '([a-zé]+)([0-9])')`],
  str_replace_regex: [`regexp_replace(s, '([0-9])', '<\\1>', 'g')`],
  when: [`case when i > 0 then s else 'neg' end`], coalesce: ['coalesce(x, i)'],
  fill_null: [`coalesce(s, '?')`], is_in: ['i in (1, 2, -1000, 3.0)'],
  between: ['i between -100 and 100'], nullif: ['nullif(i, 0)'],
  abs_f: ['abs(x)'], abs_i: ['abs(i)', 'i > -9223372036854775808'],
  round_f: ['round(x, 2)', 'abs(x) < 1e6'], round_i: ['round(i, -2)', 'i between -1000000000000000 and 1000000000000000'],
  floor: ['floor(x)'], ceil: ['ceil(x)'], sqrt: ['sqrt(x)', `x >= 0 and ${notNaN('x')}`],
  exp: ['exp(x)', 'x < 700'], log: ['ln(x)', `x > 0 and ${notNaN('x')}`],
  log10: ['log10(x)', `x > 0 and ${notNaN('x')}`], pow: ['pow(x, 3.0)'],
  clip: ['least(greatest(x, -10.5), 10.5)', notNaN('x')], sign_f: ['sign(x)', notNaN('x')],
  sign_i: ['sign(i)'], list_contains: ['list_contains(l, 2)'], list_sum: ['list_sum(l)'],
  list_mean: ['list_avg(l)'], list_min: ['list_min(l)'], list_max: ['list_max(l)'],
  list_slice: ['list_slice(l, 2, 3)'], list_sort: [`list_sort(l, 'ASC', 'NULLS LAST')`],
  list_distinct: ['list_distinct(l)', null, 'set'],
  list_join: [`array_to_string(string_split(s, ','), '+')`],
  cosine_similarity: ['list_cosine_similarity(a, b)'], dot: ['list_inner_product(a, b)'],
  l2_distance: ['list_distance(a, b)'],
  dt_year: ['year(ts)'], dt_month: ['month(ts)'], dt_day: ['day(ts)'], dt_hour: ['hour(ts)'],
  dt_minute: ['minute(ts)'], dt_second: ['second(ts)'], dt_day_of_week: ['isodow(ts)'],
  dt_truncate_month: [`epoch_us(date_trunc('month', ts))`, null, 'micros'],
  dt_truncate_week: [`epoch_us(date_trunc('week', ts))`, null, 'micros'],
  dt_truncate_hour: [`epoch_us(date_trunc('hour', ts))`, null, 'micros'],
  lit_timestamp: [`ts >= timestamp '2000-01-01'`],
  plus_duration: [`epoch_us(ts + interval '3 days 5 microseconds')`, null, 'micros'],
  minus_timestamp: [`epoch_us(ts) - epoch_us(timestamp '2000-01-01')`],
  iso_parse: ['epoch_us(ts)', null, 'micros'], iso_format: ['epoch_us(ts)', null, 'text_instant'],
  date_year: ['year(d)'], date_month: ['month(d)'], date_day: ['day(d)'],
  date_day_of_week: ['isodow(d)'], date_truncate_month: [`date_trunc('month', d)::DATE`],
  date_truncate_week: [`date_trunc('week', d)::DATE`], lit_date: [`d >= date '2000-01-01'`],
  date_plus_days: ['d + 40'], date_minus_date: [`d - date '2000-01-01'`],
  date_format: ['d::VARCHAR'], date_parse: ['d'], timestamp_to_date: ['ts::DATE'],
  date_to_timestamp: ['epoch_us(d::TIMESTAMP)', null, 'micros'],
};

// A number, from a JSON number or the text DuckDB writes for BIGINT, NaN and infinities;
// undefined for anything else (text, bools, nulls).
function number(v) {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return undefined;
  if (v === 'NaN' || v === 'Infinity' || v === '-Infinity') return Number(v);
  return /^-?[0-9]+(\.[0-9]*)?(e[-+]?[0-9]+)?$/i.test(v) ? Number(v) : undefined;
}

// Equal values: the same JSON, or numbers within 1e-9 relative (NaN equal to NaN).
function same(a, b) {
  if (JSON.stringify(a) === JSON.stringify(b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, k) => same(v, b[k]));
  }
  const x = number(a), y = number(b);
  if (x === undefined || y === undefined) return false;
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) && Number.isNaN(y);
  if (!Number.isFinite(x) || !Number.isFinite(y)) return x === y;
  return Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x), Math.abs(y));
}

let failures = 0;
for (const [name, [sql, where, how]] of Object.entries(checks)) {
  // Instants compare as microseconds; ember's ISO text as the instant DuckDB reads from it
  // (DuckDB writes fractions without trailing zeros, ember always with six digits).
  const got = how === 'micros' ? `epoch_us(e.${name})`
            : how === 'text_instant' ? `epoch_us(e.${name}::timestamp)` : `e.${name}`;
  const rows = (await con.runAndReadAll(
      `select t.id, ${got}, ${sql} from t join e on t.id = e.id
       ${where ? `where ${where}` : ''} order by t.id`)).getRowsJson();
  let bad = 0;
  for (const [id, mine, theirs] of rows) {
    const [m, d] = how === 'set' && mine && theirs ? [[...mine].sort(), [...theirs].sort()] : [mine, theirs];
    if (!same(m, d)) {
      if (bad++ < 3) console.error(`${name} row ${id}: ember ${JSON.stringify(mine)}, DuckDB ${JSON.stringify(theirs)}`);
    }
  }
  if (rows.length < 100) {
    console.error(`${name}: only ${rows.length} rows compared`);
    failures++;
  } else if (bad) {
    console.error(`${name}: ${bad} of ${rows.length} rows differ`);
    failures++;
  } else {
    console.log(`${name}: ${rows.length} rows match`);
  }
}
if (failures) {
  console.error(`${failures} functions differ from DuckDB`);
  process.exit(1);
}
