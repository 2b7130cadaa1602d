/**
 * Records which packages a Node process loads: run it with `--import` (NODE_OPTIONS) and
 * MODULE_LOG naming a file, and every module resolved from node_modules is appended to that
 * file once, one URL a line. A test uses it to prove that a feature left off loads nothing of its own.
 */
import { appendFileSync } from "node:fs";
import { register } from "node:module";
import { isMainThread } from "node:worker_threads";

// This file is loaded twice: in the process, where it registers itself, and on the loader's
// own thread, where it serves as the hooks.
if (isMainThread && process.env.MODULE_LOG) register(import.meta.url, { data: process.env.MODULE_LOG });

let file;
const seen = new Set();

export function initialize(data) {
  file = data;
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (file && resolved.url.includes("/node_modules/") && !seen.has(resolved.url)) {
    seen.add(resolved.url);
    appendFileSync(file, `${resolved.url}\n`);
  }
  return resolved;
}
