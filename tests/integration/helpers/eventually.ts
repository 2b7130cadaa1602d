/**
 * Polls `check` every 200 ms until it returns a truthy value, and resolves with it. Throws
 * after `timeoutMs`, or at once when `stopped()` says why waiting is pointless (a server that
 * exited), with that reason in the error.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  { timeoutMs = 20_000, stopped }: { timeoutMs?: number; stopped?: () => string | null } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    const reason = stopped?.() ?? (Date.now() > deadline ? "Timed out waiting" : null);
    if (reason) throw new Error(reason);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
