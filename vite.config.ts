import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { fileURLToPath } from "node:url";
import { createLogger, defineConfig, type Logger, type Plugin, type Rollup } from "vite";

/** Where a lazily loaded chunk goes: translations under assets/locales/<lng>/, the rest as usual. */
function localeChunkName(chunk: { facadeModuleId: string | null }): string {
  const locale = chunk.facadeModuleId?.match(/\/locales\/([^/]+)\/([^/]+)\.json$/);
  return locale ? `assets/locales/${locale[1]}/${locale[2]}-[hash].js` : "assets/[name]-[hash].js";
}

/**
 * Rollup warnings known to be harmless here, by code, so that a first `npm start` prints
 * nothing that looks broken while any other warning still shows:
 * - EMPTY_BUNDLE: resource routes (robots.txt, sign-out, JSON downloads…) have no browser
 *   code, and React Router still gives each a client chunk, which comes out empty.
 * - INVALID_ANNOTATION from a dependency: a `@__PURE__` comment Rollup cannot place is
 *   dropped, which only costs tree-shaking inside that dependency.
 */
function onwarn(warning: Rollup.RollupLog, warn: (warning: Rollup.RollupLog) => void): void {
  if (warning.code === "EMPTY_BUNDLE") return;
  if (warning.code === "INVALID_ANNOTATION" && warning.id?.includes("/node_modules/")) return;
  warn(warning);
}

/**
 * Vite's logger without the per-file size table (some 170 lines per build) and the
 * experimental-API notice; warnings and errors pass unchanged.
 */
function quietBuildLogger(): Logger {
  const logger = createLogger();
  const info = logger.info.bind(logger);
  logger.info = (message, options) => {
    // Colour codes around the file names.
    const plain = message.replace(/\x1b\[[0-9;]*m/g, "").trim();
    if (/^build\/\S+(\s|$)/.test(plain) || plain.startsWith("Using Vite Environment API")) return;
    info(message, options);
  };
  return logger;
}

/**
 * The generated Prisma clients import their query compiler as a module holding it in base64,
 * whose source and string (2.5 MB each) would stay in the server's heap for good. This points
 * them at app/server/db/query-compiler.server.ts, which reads the same file and lets the text
 * go once compiled, and which puts the plan cache (query-plans.server.ts) over the compiler's
 * class. The build fails if a new Prisma writes those imports otherwise.
 */
function prismaQueryCompiler(): Plugin {
  const module = `(await import("~/server/db/query-compiler.server"))`;
  const runtime = /getRuntime: async \(\) => await (import\("@prisma\/client\/runtime\/query_compiler_bg\.\w+\.mjs"\))/;
  const load =
    /const \{ wasm \} = await import\("@prisma\/client\/runtime\/query_compiler_bg\.(\w+)\.wasm-base64\.mjs"\)\s*return await decodeBase64AsWasm\(wasm\)/;
  return {
    name: "prisma-query-compiler",
    enforce: "pre",
    transform(code, id) {
      if (!/\/generated\/prisma\/\w+\/internal\/class\.ts$/.test(id)) return null;
      if (!load.test(code) || !runtime.test(code)) {
        this.error("the generated Prisma client no longer loads its query compiler as expected");
      }
      return code
        .replace(load, (_, provider) => `return ${module}.queryCompilerModule("${provider}")`)
        .replace(
          runtime,
          (_, runtimeImport) => `getRuntime: async () => ${module}.withPlanCache(await ${runtimeImport})`,
        );
    },
  };
}

export default defineConfig(({ command }) => ({
  customLogger: command === "build" ? quietBuildLogger() : undefined,
  resolve: { alias: { "~": fileURLToPath(new URL("./app", import.meta.url)) } },
  build: {
    // The icon sprite is referenced by fragment (<use href="sprite.svg#id">), which a data: URL cannot serve.
    assetsInlineLimit: (file: string) => (file.endsWith(".svg") ? false : undefined),
    rollupOptions: { onwarn },
  },
  environments: {
    // Translation files get their own folder per language, e.g. assets/locales/fr/auth-[hash].js.
    client: { build: { rollupOptions: { onwarn, output: { chunkFileNames: localeChunkName } } } },
    // The server bundle's entry is app/app.server.ts: it exports the request handler plus the
    // start-up and shutdown hooks server.ts needs, so both share one database client.
    ssr: { build: { rollupOptions: { onwarn, input: "./app/app.server.ts" } } },
  },
  plugins: process.env.VITEST ? [] : [prismaQueryCompiler(), tailwindcss(), reactRouter()],
  test: {
    include: ["app/**/*.test.{ts,tsx}", "tests/integration/**/*.test.ts", "tests/support/**/*.test.ts"],
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
}));
