// npm apache-arrow reads the Arrow IPC files ember wrote (DIR/ember/part-*.arrow, and the
// stream format's DIR/emberstream/part-*.arrows) and checks every value against the formulas of
// arrow_interop.cpp; then writes the same table itself (DIR/js/data.arrow and, as a stream,
// DIR/js/data.arrows) for ember to read. Usage: node check_arrow_with_apache_arrow.mjs DIR NPM_DIR
import { createRequire } from 'module';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'fs';

const [dir, npmDir] = process.argv.slice(2);
const require = createRequire(npmDir + '/');
const A = require('apache-arrow');
const N = 5000;

const expected = {
  id: (i) => BigInt(i),
  i32: (i) => (i % 7 === 0 ? null : i * 3 - 100),
  f32: (i) => Math.fround(i / 4),
  f64: (i) => (i % 5 === 0 ? null : i * 1.5),
  s: (i) => (i % 11 === 0 ? null : `s${i}`),
  b: (i) => (i % 13 === 0 ? null : i % 3 === 0),
  ts: (i) => (i % 2 ? null : i * 1000 + 1),  // milliseconds, as apache-arrow shows microseconds
  bin: (i) => [i % 256, 0, 255],
  xs: (i) => (i % 4 === 0 ? null : Array.from({ length: i % 4 }, (_, k) => (k === 2 ? null : BigInt(k * i)))),
  emb: (i) => (i % 9 === 0 ? null : [Math.fround(i), Math.fround(-i)]),
  // A struct and a map, as [name, value] and [key, value] pairs (how their rows iterate).
  pt: (i) => (i % 6 === 0 ? null : [['x', i % 3 === 0 ? null : BigInt(i * 2)], ['name', `n${i}`]]),
  kv: (i) => (i % 8 === 0 ? null : Array.from({ length: i % 3 }, (_, k) => [`k${k}`, k === 1 ? null : BigInt(i + k)])),
};
const types = {
  id: new A.Int64(), i32: new A.Int32(), f32: new A.Float32(), f64: new A.Float64(), s: new A.Utf8(),
  b: new A.Bool(), ts: new A.TimestampMicrosecond('UTC'), bin: new A.Binary(),
  xs: new A.List(new A.Field('item', new A.Int64(), true)),
  emb: new A.FixedSizeList(2, new A.Field('item', new A.Float32(), true)),
  pt: new A.Struct([new A.Field('x', new A.Int64(), true), new A.Field('name', new A.Utf8(), true)]),
  kv: new A.Map_(new A.Field('entries', new A.Struct([
    new A.Field('key', new A.Utf8(), false), new A.Field('value', new A.Int64(), true)]), false), false),
};

const norm = (v) => {
  if (v === null || v === undefined) return null;
  if (v instanceof Uint8Array) return Array.from(v);
  if (typeof v === 'object' && typeof v[Symbol.iterator] === 'function') return Array.from(v, norm);
  return v;
};
const same = (a, b) => JSON.stringify(a, (k, x) => (typeof x === 'bigint' ? `${x}n` : x)) ===
                       JSON.stringify(b, (k, x) => (typeof x === 'bigint' ? `${x}n` : x));

// ember's files (the file format), then its streams (the stream format).
for (const [sub, ext] of [['ember', '.arrow'], ['emberstream', '.arrows']]) {
let rows = [];
const files = readdirSync(`${dir}/${sub}`).filter((f) => f.endsWith(ext)).sort();
for (const f of files) {
  const t = A.tableFromIPC(readFileSync(`${dir}/${sub}/${f}`));
  for (const [name, type] of Object.entries(types)) {
    const field = t.schema.fields.find((x) => x.name === name);
    if (!field || String(field.type) !== String(type)) {
      console.error(`${f}: column ${name} is ${field && field.type}, expected ${type}`);
      process.exit(1);
    }
  }
  for (let r = 0; r < t.numRows; r++) rows.push(Object.fromEntries(Object.keys(types).map((k) => [k, norm(t.getChild(k).get(r))])));
}
if (rows.length !== N) { console.error(`read ${rows.length} rows, expected ${N}`); process.exit(1); }
rows.sort((a, b) => (a.id < b.id ? -1 : 1));
for (let i = 0; i < N; i++) {
  for (const [name, f] of Object.entries(expected)) {
    if (!same(rows[i][name], f(i))) {
      console.error(`row ${i} column ${name}: got ${JSON.stringify(rows[i][name], (k, x) => String(x))}, want ${f(i)}`);
      process.exit(1);
    }
  }
}
console.log(`apache-arrow read ember's ${files.length} ${ext} files: ${N} rows, every value matches`);
}

const col = (f) => Array.from({ length: N }, (_, i) => f(i));
// The builders' inputs: bytes as Uint8Array, a struct row as an object, a map row as a Map.
const input = (name, f) => {
  if (name === 'bin') return col((i) => new Uint8Array(f(i)));
  if (name === 'pt') return col((i) => (f(i) === null ? null : Object.fromEntries(f(i))));
  if (name === 'kv') return col((i) => (f(i) === null ? null : new Map(f(i))));
  return col(f);
};
const columns = {};
for (const [name, f] of Object.entries(expected)) columns[name] = A.vectorFromArray(input(name, f), types[name]);
mkdirSync(`${dir}/js`, { recursive: true });
writeFileSync(`${dir}/js/data.arrow`, A.tableToIPC(new A.Table(columns), 'file'));
writeFileSync(`${dir}/js/data.arrows`, A.tableToIPC(new A.Table(columns), 'stream'));

// The same table with its text column dictionary-encoded (int16 indices), in two record batches
// that share one dictionary batch: how pyarrow and polars often write categorical text.
const dictType = new A.Dictionary(new A.Utf8(), new A.Int16());
const dictColumns = {};
for (const [name, f] of Object.entries(expected)) {
  dictColumns[name] = A.vectorFromArray(input(name, f), name === 's' ? dictType : types[name]);
}
const whole = new A.Table(dictColumns);
const half = N / 2;
const dictTable = new A.Table([...whole.slice(0, half).batches, ...whole.slice(half).batches]);
mkdirSync(`${dir}/jsdict`, { recursive: true });
writeFileSync(`${dir}/jsdict/data.arrow`, A.tableToIPC(dictTable, 'file'));
const written = A.tableFromIPC(readFileSync(`${dir}/jsdict/data.arrow`));
if (!A.DataType.isDictionary(written.schema.fields.find((f) => f.name === 's').type) ||
    written.batches.length !== 2) {
  console.error('apache-arrow did not write a dictionary-encoded column in two batches');
  process.exit(1);
}
console.log('apache-arrow wrote the table again with a dictionary-encoded text column');

// The view types: text and bytes as Utf8View and BinaryView, values inline (up to 12 bytes) and
// in data buffers, with nulls; ember reads them as utf8 and binary (arrow_interop.cpp).
const viewExpected = {
  id: (i) => BigInt(i),
  sv: (i) => (i % 11 === 0 ? null : i % 2 ? `s${i}` : `a longer string, number ${i}`),
  bv: (i) => (i % 13 === 0 ? null : Array.from({ length: i % 29 }, (_, k) => (i + k) % 256)),
};
const viewColumns = {
  id: A.vectorFromArray(col(viewExpected.id), new A.Int64()),
  sv: A.vectorFromArray(col(viewExpected.sv), new A.Utf8View()),
  bv: A.vectorFromArray(col((i) => (viewExpected.bv(i) === null ? null : new Uint8Array(viewExpected.bv(i)))),
                        new A.BinaryView()),
};
mkdirSync(`${dir}/jsview`, { recursive: true });
writeFileSync(`${dir}/jsview/data.arrow`, A.tableToIPC(new A.Table(viewColumns), 'file'));
writeFileSync(`${dir}/jsview/data.arrows`, A.tableToIPC(new A.Table(viewColumns), 'stream'));
const views = A.tableFromIPC(readFileSync(`${dir}/jsview/data.arrow`));
if (String(views.schema.fields[1].type) !== 'Utf8View' || String(views.schema.fields[2].type) !== 'BinaryView') {
  console.error(`apache-arrow wrote ${views.schema.fields.map((f) => String(f.type))}, not view types`);
  process.exit(1);
}
console.log('apache-arrow wrote utf8_view and binary_view columns');

// A stream whose dictionary grows by delta dictionary batches: 4 record batches of 1250 rows,
// each batch's dictionary the previous one plus 3 new words (apache-arrow writes the added chunk
// as a DictionaryBatch with isDelta set); row i is null when i % 17 == 0, else word
// i % (3 * (batch + 1)).
{
  const rows = 5000, per = rows / 4;
  const deltaType = new A.Dictionary(new A.Utf8(), new A.Int32(), 7, false);
  const schema = new A.Schema([new A.Field('id', new A.Int64(), false), new A.Field('s', deltaType, true)]);
  let dictionary = null;
  const batches = [];
  for (let k = 0; k < 4; k++) {
    const chunk = A.vectorFromArray([0, 1, 2].map((w) => `word${3 * k + w}`), new A.Utf8());
    dictionary = dictionary ? dictionary.concat(chunk) : chunk;
    const ids = [], indices = new Int32Array(per), valid = new Uint8Array(Math.ceil(per / 8));
    let nulls = 0;
    for (let j = 0; j < per; j++) {
      const i = k * per + j;
      ids.push(BigInt(i));
      if (i % 17 === 0) { nulls++; continue; }
      indices[j] = i % (3 * (k + 1));
      valid[j >> 3] |= 1 << (j & 7);
    }
    const s = A.makeData({ type: deltaType, length: per, nullCount: nulls, nullBitmap: valid,
                           data: indices, dictionary });
    const id = A.vectorFromArray(ids, new A.Int64()).data[0];
    batches.push(new A.RecordBatch(schema, A.makeData({ type: new A.Struct(schema.fields), length: per,
                                                        nullCount: 0, children: [id, s] })));
  }
  const w = new A.RecordBatchStreamWriter();
  for (const b of batches) w.write(b);
  w.finish();
  const bytes = w.toUint8Array(true);
  let deltas = 0;
  const messages = new A.MessageReader(bytes);
  for (let m = messages.readMessage(); m !== null; m = messages.readMessage()) {
    if (m.isDictionaryBatch() && m.header().isDelta) deltas++;
    messages.readMessageBody(m.bodyLength);
  }
  if (deltas !== 3) {
    console.error(`apache-arrow wrote ${deltas} delta dictionary batches, expected 3`);
    process.exit(1);
  }
  mkdirSync(`${dir}/jsdelta`, { recursive: true });
  writeFileSync(`${dir}/jsdelta/data.arrows`, bytes);
  console.log('apache-arrow wrote a stream with 3 delta dictionary batches');
}
