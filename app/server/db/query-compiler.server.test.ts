import { describe, expect, it } from "vitest";
import { queryCompilerModule } from "./query-compiler.server";

describe("the query compiler read from its file", () => {
  it.each(["sqlite", "postgresql"])("is the module the %s client would import", async (provider) => {
    const { wasm } = (await import(`@prisma/client/runtime/query_compiler_bg.${provider}.wasm-base64.mjs`)) as {
      wasm: string;
    };
    const imported = new WebAssembly.Module(Buffer.from(wasm, "base64"));
    const read = await queryCompilerModule(provider);
    expect(WebAssembly.Module.exports(read)).toEqual(WebAssembly.Module.exports(imported));
    expect(WebAssembly.Module.imports(read)).toEqual(WebAssembly.Module.imports(imported));
  });
});
