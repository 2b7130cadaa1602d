/**
 * Rate limits, counted in the database so that every app instance sharing it sees the same
 * counts (a fixed window per client and bucket; a client is an IPv4 address or an IPv6 /64,
 * a bucket is a path or a rule's shared name). The rules are better-auth's: 100 requests
 * per 10 s by default, 3 per 10 s for sign-in, sign-up, change-password and change-email,
 * 3 per 60 s for password-reset and verification-email requests, 3 per 10 s for two-factor.
 * Verifying a passkey is presenting a credential, so those two calls count like sign-in; so
 * do a password reset and deleting the account (they take a token or the password).
 * RATE_LIMIT=off disables them (the default outside production).
 */
import { isIP } from "node:net";
import { Prisma, prisma } from "~/server/db.server";
import { loadEnv } from "~/server/env.server";
import { AppError } from "~/server/errors.server";
import { logger } from "~/server/log.server";
import { rateLimitRefusals } from "~/server/metrics.server";

export interface RateLimitRule {
  /** The rule's name in the metrics (app_rate_limit_refusals_total). */
  name: string;
  /** Window length in seconds. */
  window: number;
  /** Requests allowed per window. */
  max: number;
  /** Paths whose rule names the same bucket share one count; without one, each path counts alone. */
  bucket?: string;
}

export const DEFAULT_RULE: RateLimitRule = { name: "default", window: 10, max: 100 };

/**
 * /request-password-reset and /forget-password (better-auth's old name for it) are two doors
 * to the same email, and the forgot-password page counts as the first: one bucket, or a
 * client would get 3 requests per door.
 */
const PASSWORD_RESET_REQUEST: RateLimitRule = {
  name: "password-reset-request",
  window: 60,
  max: 3,
  bucket: "password-reset-request",
};

/** Special rules by path prefix (paths relative to /api/auth; pages use the same names). */
const RULES: [prefix: string, rule: RateLimitRule][] = [
  ["/sign-in", { name: "sign-in", window: 10, max: 3 }],
  ["/sign-up", { name: "sign-up", window: 10, max: 3 }],
  ["/change-password", { name: "change-password", window: 10, max: 3 }],
  ["/change-email", { name: "change-email", window: 10, max: 3 }],
  // Not among better-auth's special rules, but each takes a credential (a reset token, the
  // password) that must not be guessed at 100 tries per 10 s.
  ["/reset-password", { name: "reset-password", window: 10, max: 3 }],
  ["/delete-user", { name: "delete-user", window: 10, max: 3 }],
  ["/request-password-reset", PASSWORD_RESET_REQUEST],
  ["/forget-password", PASSWORD_RESET_REQUEST],
  ["/send-verification-email", { name: "send-verification-email", window: 60, max: 3 }],
  // Codes are guessable in a way passwords are not: every two-factor call is a credential call.
  ["/two-factor", { name: "two-factor", window: 10, max: 3 }],
  ["/passkey/verify-authentication", { name: "passkey-verify-authentication", window: 10, max: 3 }],
  ["/passkey/verify-registration", { name: "passkey-verify-registration", window: 10, max: 3 }],
];

export function ruleFor(path: string): RateLimitRule {
  return RULES.find(([prefix]) => path === prefix || path.startsWith(`${prefix}/`))?.[1] ?? DEFAULT_RULE;
}

export function rateLimitEnabled(): boolean {
  return loadEnv().RATE_LIMIT;
}

export type RateLimitResult = { allowed: true } | { allowed: false; retryAfter: number };

/**
 * Counts one request against `key` and says whether it is within `rule`. One statement, so
 * concurrent requests (from any instance) cannot lose counts: insert the key with count 1,
 * or on conflict either start a new window (the old one is over) or add one to the count.
 * The same SQL runs on SQLite (3.35+) and PostgreSQL.
 */
export async function checkRateLimit(key: string, rule: RateLimitRule): Promise<RateLimitResult> {
  const now = new Date();
  const windowOver = new Date(now.getTime() - rule.window * 1000);
  const rows = await prisma.$queryRaw<{ count: number | bigint; windowStart: Date | string | number }[]>(Prisma.sql`
    INSERT INTO "rate_limit" ("key", "count", "windowStart") VALUES (${key}, 1, ${now})
    ON CONFLICT ("key") DO UPDATE SET
      "count" = CASE WHEN "rate_limit"."windowStart" <= ${windowOver} THEN 1 ELSE "rate_limit"."count" + 1 END,
      "windowStart" = CASE WHEN "rate_limit"."windowStart" <= ${windowOver} THEN ${now} ELSE "rate_limit"."windowStart" END
    RETURNING "count", "windowStart"`);
  const row = rows[0];
  if (!row || Number(row.count) <= rule.max) {
    // Now and then, forget windows that ended long ago (any instance may do it).
    if (Math.random() < 0.01) void sweep();
    return { allowed: true };
  }
  rateLimitRefusals.inc({ rule: rule.name });
  const windowEnd = new Date(row.windowStart).getTime() + rule.window * 1000;
  return { allowed: false, retryAfter: Math.max(1, Math.ceil((windowEnd - now.getTime()) / 1000)) };
}

async function sweep(): Promise<void> {
  try {
    await prisma.rateLimit.deleteMany({ where: { windowStart: { lt: new Date(Date.now() - 3600 * 1000) } } });
  } catch (error) {
    logger().error({ err: error }, "Rate limit cleanup failed");
  }
}

/** The eight 16-bit groups of an IPv6 address that `isIP` accepted (zone already removed). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const ipv4Tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (ipv4Tail) {
    const [a, b, c, d] = ipv4Tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, ipv4Tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const groups = (part: string) => (part ? part.split(":").map((group) => parseInt(group, 16)) : []);
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/**
 * Who a limit counts. An IPv6 subscriber is routinely given a whole /64 and can pick any
 * address in it, so IPv6 clients are counted by /64 prefix; an IPv4-mapped address
 * (::ffff:a.b.c.d, how a dual-stack socket reports IPv4 peers) is the IPv4 client it stands for.
 */
export function rateLimitClient(ipAddress: string | null): string {
  const address = ipAddress?.replace(/%.*$/, "").toLowerCase();
  if (!address) return "unknown";
  if (isIP(address) !== 6) return address;
  const groups = ipv6Groups(address);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high = 0, low = 0] = groups.slice(6);
    return [high >> 8, high & 255, low >> 8, low & 255].join(".");
  }
  const prefix = groups.slice(0, 4).map((group) => group.toString(16));
  return `${prefix.join(":")}::/64`;
}

/** "{client}|{bucket}": the rule's shared bucket, or else the path itself. */
export const rateLimitKey = (ipAddress: string | null, path: string) =>
  `${rateLimitClient(ipAddress)}|${ruleFor(path).bucket ?? path}`;

/**
 * For page actions that do what an /api/auth call does (`path` is that call's path, e.g.
 * "/sign-in/email"): throws TOO_MANY_REQUESTS (with X-Retry-After) when over the limit.
 */
export async function enforceRateLimit(ipAddress: string | null, path: string): Promise<void> {
  if (!rateLimitEnabled()) return;
  const result = await checkRateLimit(rateLimitKey(ipAddress, path), ruleFor(path));
  if (!result.allowed) {
    throw new AppError("TOO_MANY_REQUESTS", undefined, undefined, { "X-Retry-After": String(result.retryAfter) });
  }
}
