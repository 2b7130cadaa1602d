/**
 * Prisma's query compiler, a WebAssembly module, compiled from the base64 text its package
 * ships, read as a file rather than imported. The generated clients import it as a module,
 * whose source and string literal (2.5 MB each) would then stay in the heap for the life of
 * the process; read here, both are garbage once compiled. vite.config.ts points the generated
 * clients at this function (prismaQueryCompiler).
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { type CompilerClass, planCaching } from "./query-plans.server";

export async function queryCompilerModule(provider: string): Promise<WebAssembly.Module> {
  const file = createRequire(import.meta.url).resolve(
    `@prisma/client/runtime/query_compiler_bg.${provider}.wasm-base64.mjs`,
  );
  // The file reads `const wasm = "<base64>"` and an export.
  const source = await readFile(file, "latin1");
  const base64 = source.slice(source.indexOf('"') + 1, source.lastIndexOf('"'));
  return new WebAssembly.Module(Buffer.from(base64, "base64"));
}

/** The compiler's JavaScript side with its class replaced by one that keeps plans (query-plans.server.ts). */
export function withPlanCache<Runtime extends { QueryCompiler: CompilerClass }>(runtime: Runtime): Runtime {
  return { ...runtime, QueryCompiler: planCaching(runtime.QueryCompiler) };
}
