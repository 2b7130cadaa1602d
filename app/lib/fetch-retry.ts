/** Statuses worth one more try: timeouts, conflicts, rate limits and transient server errors. */
export const RETRY_STATUSES = new Set([408, 409, 425, 429, 500, 502, 503, 504]);

/**
 * Wraps fetch so that client-side GET data requests (React Router's `.data` requests) are
 * retried once on a transient status. Mutations are never retried: repeating one could apply
 * it twice.
 */
export function withDataRetry(fetchImpl: typeof fetch): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const response = await fetchImpl(request.clone());
    const isDataGet = request.method === "GET" && new URL(request.url).pathname.endsWith(".data");
    if (!isDataGet || !RETRY_STATUSES.has(response.status)) return response;
    return fetchImpl(request);
  };
}
