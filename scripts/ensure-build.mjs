#!/usr/bin/env node
// `prestart`: builds the app when there is no build yet or a source is newer than it, so
// `npm install && npm start` works on a fresh clone and `npm start` never serves stale code.
// A cheap mtime scan: no hashing, no caches.
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const OUTPUTS = ["build/server.js", "build/server/index.js", "build/client/builds/latest.json"];
const INPUTS = [
  "app",
  "locales",
  "prisma",
  "public",
  "server.ts",
  "package.json",
  "vite.config.ts",
  "react-router.config.ts",
  "scripts/build-server.mjs",
];

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
}

/** The newest modification time of a file or of anything below a folder (0 when absent). */
function newest(path) {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    return 0;
  }
  if (!stats.isDirectory()) return stats.mtimeMs;
  let latest = stats.mtimeMs; // a deleted file changes its folder's mtime
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

const outputTimes = OUTPUTS.map((file) => mtime(join(root, file)));
const missing = OUTPUTS.filter((_, i) => outputTimes[i] === null);
const builtAt = Math.min(...outputTimes.map((time) => time ?? 0));
const changed = INPUTS.filter((input) => newest(join(root, input)) > builtAt);

if (missing.length === 0 && changed.length === 0) process.exit(0);

console.log(
  missing.length > 0
    ? `No complete build (missing ${missing.join(", ")}): building…`
    : `Changed since the last build (${changed.join(", ")}): building…`,
);
const result = spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit", shell: process.platform === "win32" });
process.exit(result.status ?? 1);
