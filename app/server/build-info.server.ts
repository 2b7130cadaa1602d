import { readFileSync } from "node:fs";
import { join } from "node:path";

let buildId: string | null | undefined;

/**
 * The id of the build this process serves, written by the build into builds/latest.json.
 * Read once: a newer file on disk means a newer build the open pages have not loaded yet.
 */
export function currentBuildId(): string | null {
  if (buildId === undefined) {
    try {
      const file = join(process.cwd(), "build/client/builds/latest.json");
      buildId = (JSON.parse(readFileSync(file, "utf8")) as { id?: string }).id ?? null;
    } catch {
      buildId = null; // development server: no build manifest, nothing to watch
    }
  }
  return buildId;
}
