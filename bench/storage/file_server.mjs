// A static file server for the download benchmark: every file of DIR held in memory, served
// over HTTP/1.1 with keep-alive on 127.0.0.1; prints its port on stdout, then serves until
// stdin closes.
//   node file_server.mjs DIR
import { createServer } from "node:http";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[2];
const files = new Map();
for (const name of readdirSync(dir)) files.set("/" + name, readFileSync(join(dir, name)));
const server = createServer((req, res) => {
  const body = req.method === "GET" ? files.get(req.url) : undefined;
  if (!body) {
    res.writeHead(404, { "Content-Type": "text/plain" });
    res.end("not found");
    return;
  }
  res.writeHead(200, { "Content-Type": "application/octet-stream", "Content-Length": body.length });
  res.end(body);
});
server.keepAliveTimeout = 60000;
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
process.stdin.resume();
process.stdin.on("end", () => server.close(() => process.exit(0)));
