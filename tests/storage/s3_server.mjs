// An S3-compatible server (npm s3rver) on loopback for the object storage tests, with a proxy in
// front of it that checks AWS Signature V4 (s3rver checks only the key id), keeps count of the
// multipart uploads left open (and answers AbortMultipartUpload, which s3rver lacks), and can
// misbehave on request: answer 503 SlowDown, or drop the connection, for the next N requests.
// Usage: node --openssl-legacy-provider s3_server.mjs NPM_DIR DATA_DIR BUCKET...
// (s3rver's continuation tokens use DES, which OpenSSL 3 keeps in its legacy provider.)
// Prints one JSON line {"s3": port, "proxy": port} once both listen; exits when stdin closes
// (the test that started it ended, however it ended).
import { createRequire } from 'module';
import crypto from 'crypto';
import http from 'http';

const [npmDir, dataDir, ...buckets] = process.argv.slice(2);
const require = createRequire(npmDir + '/');
const S3rver = require('s3rver');

const s3 = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory: dataDir,
  configureBuckets: buckets.map((name) => ({ name })),
});
const { port: s3Port } = await s3.run();

// SigV4 as AWS documents it, computed independently of the client: the secret of each key
// s3rver knows (an unknown key goes through, for s3rver to answer InvalidAccessKeyId).
const secrets = { S3RVER: 'S3RVER' };
const awsEncode = (s) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
const sha256 = (s) => crypto.createHash('sha256').update(s).digest('hex');
const hmac = (key, s) => crypto.createHmac('sha256', key).update(s).digest();

function signatureProblem(req) {
  const auth = req.headers['authorization'];
  if (!auth) return null;  // an anonymous request
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]+)$/.exec(auth);
  if (!m) return 'a malformed Authorization header';
  const [, key, date, region, service, signedHeaders, signature] = m;
  if (!(key in secrets)) return null;
  const q = req.url.indexOf('?');
  const path = q < 0 ? req.url : req.url.slice(0, q);
  const query = q < 0 ? '' : req.url.slice(q + 1);
  const uri = path.split('/').map((p) => awsEncode(decodeURIComponent(p))).join('/');
  const pairs = query === '' ? [] : query.split('&').map((p) => {
    const i = p.indexOf('=');
    const k = i < 0 ? p : p.slice(0, i);
    const v = i < 0 ? '' : p.slice(i + 1);
    return [awsEncode(decodeURIComponent(k)), awsEncode(decodeURIComponent(v))];
  });
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  const headers = signedHeaders.split(';')
    .map((h) => h + ':' + String(req.headers[h] ?? '').trim().replace(/\s+/g, ' ')).join('\n');
  const payload = req.headers['x-amz-content-sha256'];
  if (!payload) return 'no x-amz-content-sha256 header';
  const canonical = [req.method, uri, pairs.map(([k, v]) => k + '=' + v).join('&'),
                     headers + '\n', signedHeaders, payload].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', req.headers['x-amz-date'], scope, sha256(canonical)].join('\n');
  let k = hmac('AWS4' + secrets[key], date);
  for (const part of [region, service, 'aws4_request']) k = hmac(k, part);
  return crypto.createHmac('sha256', k).update(toSign).digest('hex') === signature
    ? null : 'the signature does not match';
}

// What the proxy does next, set with GET /__control?slowdown=N&reset=M&deny_parts=K; counted
// per kind. GET /__control alone returns the counters (and open_uploads).
// deny_parts=N answers 403 AccessDenied to the next N part uploads (not retried, as a client
// must not retry a denial).
const plan = { slowdown: 0, reset: 0, deny_parts: 0 };
const openUploads = new Set();
const served = { slowdown: 0, reset: 0, forwarded: 0, GET: 0, HEAD: 0, PUT: 0, POST: 0, DELETE: 0 };

const proxy = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  if (url.pathname === '/__control') {
    for (const k of ['slowdown', 'reset', 'deny_parts']) {
      if (url.searchParams.has(k)) plan[k] = Number(url.searchParams.get(k));
    }
    if (url.searchParams.has('clear')) for (const k of Object.keys(served)) served[k] = 0;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...served, open_uploads: openUploads.size }));
    return;
  }
  if (plan.reset > 0) {
    plan.reset--;
    served.reset++;
    req.socket.destroy();
    return;
  }
  if (plan.slowdown > 0) {
    plan.slowdown--;
    served.slowdown++;
    req.resume();
    res.writeHead(503, { 'content-type': 'application/xml' });
    res.end('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code>' +
            '<Message>Please reduce your request rate.</Message></Error>');
    return;
  }
  const problem = signatureProblem(req);
  if (problem) {
    served.denied = (served.denied || 0) + 1;
    req.resume();
    res.writeHead(403, { 'content-type': 'application/xml' });
    res.end('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SignatureDoesNotMatch</Code>' +
            '<Message>The request signature we calculated does not match the signature you ' +
            'provided. Check your key and signing method.</Message></Error>');
    return;
  }
  const uploadId = url.searchParams.get('uploadId');
  if (req.method === 'DELETE' && uploadId !== null) {
    served.aborted = (served.aborted || 0) + 1;
    openUploads.delete(uploadId);
    req.resume();
    res.writeHead(204);
    res.end();
    return;
  }
  if (req.method === 'PUT' && uploadId !== null && plan.deny_parts > 0) {
    plan.deny_parts--;
    req.resume();
    res.writeHead(403, { 'content-type': 'application/xml' });
    res.end('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code>' +
            '<Message>Access Denied</Message></Error>');
    return;
  }
  const initiating = req.method === 'POST' && url.searchParams.has('uploads');
  served.forwarded++;
  served[req.method] = (served[req.method] || 0) + 1;
  // Signed requests (their signature checked above), and those that carried a session token.
  if (req.headers['authorization']) served.signed = (served.signed || 0) + 1;
  if (req.headers['x-amz-security-token']) served.with_token = (served.with_token || 0) + 1;
  // Headers go through unchanged (Host included): the signature s3rver checks covers them.
  const upstream = http.request(
    { host: '127.0.0.1', port: s3Port, method: req.method, path: req.url, headers: req.headers },
    (answer) => {
      res.writeHead(answer.statusCode, answer.headers);
      if (!initiating) {
        if (req.method === 'POST' && uploadId !== null && answer.statusCode === 200) {
          openUploads.delete(uploadId);
        }
        answer.pipe(res);
        return;
      }
      const chunks = [];
      answer.on('data', (c) => chunks.push(c));
      answer.on('end', () => {
        const body = Buffer.concat(chunks);
        const id = /<UploadId>([^<]+)<\/UploadId>/.exec(body.toString());
        if (id) openUploads.add(id[1]);
        res.end(body);
      });
    });
  upstream.on('error', () => res.destroy());
  req.pipe(upstream);
});
await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));

console.log(JSON.stringify({ s3: s3Port, proxy: proxy.address().port }));
process.stdin.resume();
process.stdin.on('end', async () => {
  proxy.close();
  await s3.close();
  process.exit(0);
});
