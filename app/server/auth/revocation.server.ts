/**
 * Revocations that reach the cookie cache at once (docs/decisions/0008-revocation.md).
 *
 * The cookie cache lets a request skip the database for up to COOKIE_CACHE_MAX_AGE seconds,
 * so a session deleted from the database would otherwise live on in every browser that
 * still holds its cache. Each instance therefore remembers, per user, "do not trust a
 * cached copy until T" for every revocation it hears of; a cache hit for that user reads the
 * database instead, which knows the truth. T is one cache lifetime (plus a margin for
 * clocks) after the revocation: every cache written before it has run out by then.
 *
 * On PostgreSQL a revocation also sends `NOTIFY session_revocation, '<userId>'` inside the
 * transaction that deletes the rows, so it reaches every instance exactly when it commits.
 * An instance whose listener is down trusts no cache at all, and after reconnecting keeps
 * that up for one more window, since it may have missed notices meanwhile. On SQLite the one
 * process sees every revocation itself.
 */
import pg from "pg";
import { providerOf } from "~/server/db/url.server";
import { loadEnv } from "~/server/env.server";
import { logger } from "~/server/log.server";
import { sessionRevocations } from "~/server/metrics.server";

/** How long (seconds) a cookie-cached session is trusted without reading the database. */
export const COOKIE_CACHE_MAX_AGE = 60;

const CHANNEL = "session_revocation";
/** A cache lifetime plus a margin for clock differences between instances. */
const WINDOW_MS = (COOKIE_CACHE_MAX_AGE + 5) * 1000;
/** Past this many users with live marks, trust no cache at all for one window (bounded memory). */
const MAX_MARKS = 50_000;
const HEARTBEAT_MS = 10_000;
const RETRY_MS = { first: 500, max: 15_000 };

const staleUntil = new Map<string, number>();
/** While > now, no cookie cache is trusted (listener down, or too many marks). */
let distrustAllUntil = 0;

/** True when a cookie cache of `userId`'s session may answer without reading the database. */
export function cacheTrusted(userId: string): boolean {
  const now = Date.now();
  if (now < distrustAllUntil) return false;
  const until = staleUntil.get(userId);
  if (until === undefined) return true;
  if (until > now) return false;
  staleUntil.delete(userId);
  return true;
}

function mark(userId: string): void {
  const now = Date.now();
  if (staleUntil.size >= MAX_MARKS) {
    for (const [id, until] of staleUntil) if (until <= now) staleUntil.delete(id);
    if (staleUntil.size >= MAX_MARKS) {
      staleUntil.clear();
      distrustAllUntil = Math.max(distrustAllUntil, now + WINDOW_MS);
    }
  }
  staleUntil.set(userId, now + WINDOW_MS);
}

type Notifier = { $executeRaw(query: TemplateStringsArray, ...values: unknown[]): Promise<number> };

/**
 * Tells every instance that `userId`'s sessions changed (some were deleted, or the user was
 * changed in a way a cached copy must not hide). Pass the transaction that deletes the rows,
 * so that on PostgreSQL the notice is sent exactly when they are gone.
 */
export async function announceRevocation(db: Notifier, userId: string): Promise<void> {
  mark(userId);
  sessionRevocations.inc();
  if (providerOf(loadEnv().DATABASE_URL) === "postgresql")
    await db.$executeRaw`SELECT pg_notify(${CHANNEL}, ${userId})`;
}

// ---- the PostgreSQL listener ----

let listener: pg.Client | null = null;
let stopped = true;
let retryDelay = RETRY_MS.first;
let retryTimer: NodeJS.Timeout | undefined;
let heartbeat: NodeJS.Timeout | undefined;

/** Starts listening for other instances' revocations (PostgreSQL only; a no-op on SQLite). */
export function startRevocationListener(): void {
  const url = loadEnv().DATABASE_URL;
  if (providerOf(url) !== "postgresql" || !stopped) return;
  stopped = false;
  distrustAllUntil = Infinity; // nothing heard yet
  void connect(url);
}

async function connect(url: string): Promise<void> {
  const client = new pg.Client({
    connectionString: url,
    keepAlive: true,
    application_name: `app-revocations-${process.pid}`,
  });
  let lostOnce = false;
  const onLost = (reason: unknown) => {
    if (lostOnce) return;
    lostOnce = true;
    lost(client, url, reason);
  };
  client.on("notification", (message) => {
    if (message.channel === CHANNEL && message.payload) mark(message.payload);
  });
  client.on("error", onLost);
  client.on("end", () => onLost("connection ended"));
  try {
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
  } catch (error) {
    onLost(error);
    return;
  }
  if (stopped || lostOnce) {
    void client.end().catch(() => {});
    return;
  }
  listener = client;
  retryDelay = RETRY_MS.first;
  // Notices sent while nobody listened are lost: caches written before them may still be around.
  distrustAllUntil = Date.now() + WINDOW_MS;
  logger().info("Revocation listener connected");
  // A connection that dies silently (no FIN, no RST) is only noticed by using it.
  heartbeat = setInterval(() => {
    client.query("SELECT 1").catch(onLost);
  }, HEARTBEAT_MS);
}

function lost(client: pg.Client, url: string, reason: unknown): void {
  if (listener === client) listener = null;
  clearInterval(heartbeat);
  void client.end().catch(() => {});
  if (stopped) return;
  distrustAllUntil = Infinity;
  const why = reason instanceof Error ? reason.message : String(reason);
  logger().warn(`Revocation listener disconnected (${why}): sessions are read from the database until it is back`);
  clearTimeout(retryTimer);
  retryTimer = setTimeout(() => void connect(url), retryDelay);
  retryDelay = Math.min(retryDelay * 2, RETRY_MS.max);
}

/** Stops the listener (shutdown). */
export async function stopRevocationListener(): Promise<void> {
  stopped = true;
  clearTimeout(retryTimer);
  clearInterval(heartbeat);
  const client = listener;
  listener = null;
  await client?.end().catch(() => {});
}
