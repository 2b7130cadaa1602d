/**
 * What a rendered page leaves behind in the process once it has been sent. A timer, a listener
 * or a stream still pending after the answer keeps the request alive with it: under load that
 * is memory and garbage-collector work for every page served. The built app is driven in a
 * child process of its own (the test runner's timers would blur the count), through the same
 * `handleRequest` server.ts calls, and the process reports its pending timers.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "./helpers/database";
import { BROWSER_UA } from "./helpers/http";
import { ROOT } from "./helpers/server";

const PAGES = 20;
const BASE = "http://127.0.0.1:3999";
const DRIVER = `
const app = await import(${JSON.stringify(pathToFileURL(join(ROOT, "build/server/index.js")).href)});
await app.startup();
const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;
const page = async (path) => {
  const headers = { "user-agent": ${JSON.stringify(BROWSER_UA)}, "cache-control": "no-cache" };
  const response = await app.handleRequest(new Request(${JSON.stringify(BASE)} + path, { headers }), { address: "127.0.0.1" });
  if (response.status !== 200) throw new Error(path + " answered " + response.status);
  await response.text();
};
const counts = {};
for (const path of JSON.parse(process.argv[1])) {
  await page(path); // first render: lazy modules and caches
  const before = timers();
  for (let i = 0; i < ${PAGES}; i++) await page(path);
  counts[path] = timers() - before;
}
console.log(JSON.stringify(counts));
process.exit(0);
`;

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

describe("a page once sent", () => {
  it(`leaves no timer pending, after ${PAGES} renders of pages that hydrate and pages that do not`, async () => {
    const paths = ["/pricing", "/fr", "/signin", "/ja/signup"];
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--input-type=module", "-e", DRIVER, JSON.stringify(paths)],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          BASE_URL: BASE,
          DATABASE_URL: db.url,
          AUTH_SECRET: "integration-test-secret-0123456789abcdef",
          RATE_LIMIT: "off",
        },
      },
    );
    const counts = JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, number>;
    expect(counts).toEqual(Object.fromEntries(paths.map((path) => [path, 0])));
  });
});
