import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

/** Where a lazily loaded chunk goes: translations under assets/locales/<lng>/, the rest as usual. */
function localeChunkName(chunk: { facadeModuleId: string | null }): string {
  const locale = chunk.facadeModuleId?.match(/\/locales\/([^/]+)\/([^/]+)\.json$/);
  return locale ? `assets/locales/${locale[1]}/${locale[2]}-[hash].js` : "assets/[name]-[hash].js";
}

export default defineConfig({
  resolve: { alias: { "~": fileURLToPath(new URL("./app", import.meta.url)) } },
  build: {
    // The icon sprite is referenced by fragment (<use href="sprite.svg#id">), which a data: URL cannot serve.
    assetsInlineLimit: (file: string) => (file.endsWith(".svg") ? false : undefined),
  },
  environments: {
    // Translation files get their own folder per language, e.g. assets/locales/fr/auth-[hash].js.
    client: { build: { rollupOptions: { output: { chunkFileNames: localeChunkName } } } },
    // The server bundle's entry is app/app.server.ts: it exports the request handler plus the
    // start-up and shutdown hooks server.ts needs, so both share one database client.
    ssr: { build: { rollupOptions: { input: "./app/app.server.ts" } } },
  },
  plugins: process.env.VITEST ? [] : [tailwindcss(), reactRouter()],
  test: {
    include: ["app/**/*.test.{ts,tsx}", "tests/integration/**/*.test.ts", "tests/support/**/*.test.ts"],
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
