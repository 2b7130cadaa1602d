/**
 * Every page action goes through the pipeline: each route module's action was made by
 * `pageAction`, and every rate-limit key it counts under is a registered /api/auth endpoint
 * or a declared page-only action. No route counts requests by hand.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { registeredEndpoints } from "~/server/api.server";
import { PAGE_ONLY_ACTIONS } from "./page-action.server";

const ROUTES = join(import.meta.dirname, "../routes");
/** The JSON API's own resource route: its endpoints carry their rules (api.server.ts). */
const NOT_PAGES = new Set(["api/auth.ts"]);

const routeFiles = (readdirSync(ROUTES, { recursive: true }) as string[])
  .filter((file) => /\.tsx?$/.test(file) && !/\.test\.tsx?$/.test(file))
  .sort();

describe("page actions", () => {
  it("all go through pageAction and name registered rate-limit rules", async () => {
    const endpoints = new Set(registeredEndpoints().map((endpoint) => endpoint.path));
    const pageOnly = new Set<string>(PAGE_ONLY_ACTIONS);
    const used = new Set<string>();
    const actions: Record<string, readonly string[] | "not through pageAction"> = {};
    for (const file of routeFiles) {
      if (NOT_PAGES.has(file)) continue;
      const module = (await import(/* @vite-ignore */ join(ROUTES, file))) as { action?: { rateLimits?: string[] } };
      if (!module.action) continue;
      const keys = module.action.rateLimits;
      actions[file] = Array.isArray(keys) && keys.length > 0 ? keys : "not through pageAction";
      for (const key of keys ?? []) {
        expect(endpoints.has(key) || pageOnly.has(key), `${file}: ${key} is not a registered rule`).toBe(true);
        used.add(key);
      }
    }
    expect(Object.entries(actions).filter(([, keys]) => typeof keys === "string")).toEqual([]);
    expect(Object.keys(actions).length).toBeGreaterThan(25);
    // Every page-only key is used, and none shadows an endpoint.
    for (const key of PAGE_ONLY_ACTIONS) {
      expect(used.has(key), `${key} is declared but no page uses it`).toBe(true);
      expect(endpoints.has(key), `${key} is an endpoint`).toBe(false);
    }
  });

  it("no route module counts requests by hand", () => {
    const byHand = routeFiles.filter((file) => readFileSync(join(ROUTES, file), "utf8").includes("enforceRateLimit("));
    expect(byHand).toEqual([]);
  });
});
