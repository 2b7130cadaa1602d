// The benchmark's floor (scripts/bench.mjs starts it as a child process): a bare node:http
// server at 127.0.0.1:PORT answering GET / with the app's cached home page as fetched once
// from the app, its status, headers and body taken from the JSON file BARE_RESPONSE
// ({ status, headers, body: base64 }). Nothing else: what it costs is what Node's HTTP layer
// costs for those bytes.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const { status, headers, body: base64 } = JSON.parse(readFileSync(process.env.BARE_RESPONSE, "utf8"));
const body = Buffer.from(base64, "base64");
const head = { ...headers, "content-length": String(body.length) };

const server = createServer((request, response) => {
  if (request.method === "GET" && request.url === "/") response.writeHead(status, head).end(body);
  else response.writeHead(404).end();
}).listen(Number(process.env.PORT), "127.0.0.1");
process.on("SIGTERM", () => server.close(() => process.exit(0)));
