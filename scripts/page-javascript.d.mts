export function pageJavaScript(
  base: string,
  path: string,
  headers?: Record<string, string>,
): Promise<{ status: number; redirected: boolean; urls: string[]; gzipBytes: number }>;
