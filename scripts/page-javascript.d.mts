export function pageJavaScript(
  base: string,
  path: string,
  headers?: Record<string, string>,
): Promise<{ urls: string[]; gzipBytes: number }>;
