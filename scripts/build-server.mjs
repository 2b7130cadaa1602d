#!/usr/bin/env node
// Second half of `npm run build` (after `react-router build` has written build/client and
// build/server): bundles server.ts into build/server.js, precompresses the hashed assets and
// writes the build manifest the open pages poll to notice a new deployment.
import { randomUUID } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const clientDir = join(root, "build/client");

// 1. server.ts -> build/server.js. Only server.ts itself is bundled: dependencies stay in
// node_modules, and the app arrives at run time by importing build/server/index.js.
await build({
  absWorkingDir: root,
  entryPoints: ["server.ts"],
  outfile: "build/server.js",
  bundle: true,
  packages: "external",
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: true,
  logLevel: "warning",
});

// 2. Precompressed siblings (x.js.br, x.js.gz) for the hashed assets: they never change, so
// they are compressed once here at the highest levels instead of on every request.
const COMPRESSIBLE = new Set([".js", ".mjs", ".css", ".svg", ".json", ".map", ".html", ".txt", ".xml", ".webmanifest"]);
let precompressed = 0;
function precompress(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return; // no assets folder: nothing to do
  }
  for (const entry of entries) {
    const file = join(dir, entry.name);
    if (entry.isDirectory()) {
      precompress(file);
      continue;
    }
    if (!COMPRESSIBLE.has(extname(entry.name)) || statSync(file).size < 1024) continue;
    const data = readFileSync(file);
    writeFileSync(`${file}.br`, brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
    writeFileSync(`${file}.gz`, gzipSync(data, { level: 9 }));
    precompressed++;
  }
}
precompress(join(clientDir, "assets"));

// 3. The build manifest: a fresh id per build. The server reads it to know its own build; the
// browser fetches it (served with no-cache) to learn that a newer one is deployed.
const manifest = { id: randomUUID(), time: new Date().toISOString() };
mkdirSync(join(clientDir, "builds"), { recursive: true });
writeFileSync(join(clientDir, "builds/latest.json"), `${JSON.stringify(manifest)}\n`);

console.log(`build/server.js written; ${precompressed} asset(s) precompressed; build ${manifest.id}`);
