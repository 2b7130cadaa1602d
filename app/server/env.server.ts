/**
 * The environment: every variable the app reads, with its default (listed for operators in
 * .env.example and docs/deployment.md), validated once at start.
 *
 * `parseEnv` is pure (apart from asking `devSecret` for a secret) so tests can feed it any
 * environment; `loadEnv` is what the app uses: it parses `process.env` once, and on failure
 * prints every problem as "- VAR: problem" and exits, so a bad deployment fails at start
 * with a readable list instead of at the first request that needs the value.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import { dirname, resolve } from "node:path";
import { z } from "zod";
import {
  SOCIAL_PROVIDER_IDS,
  SOCIAL_PROVIDERS,
  type ProviderConfig,
  type ProviderEndpoints,
  type ProviderExtras,
  type SocialProviderId,
} from "./auth/social/providers/index.server";
import { httpUrl, urlWith } from "./env-fields.server";
import { LOG_LEVELS, logger } from "./log.server";

/** `<ID>_<suffix>` replaces one of a provider's endpoints, e.g. to point it at a local stand-in. */
const ENDPOINT_OVERRIDES = {
  AUTHORIZATION_URL: "authorizationUrl",
  TOKEN_URL: "tokenUrl",
  USERINFO_URL: "userInfoUrl",
  ISSUER: "issuer",
  JWKS_URL: "jwksUrl",
} as const satisfies Record<string, keyof ProviderEndpoints>;
type EndpointOverride = keyof typeof ENDPOINT_OVERRIDES;

/** Outside production an admin always exists so a fresh clone can be explored at once. */
export const DEMO_ADMIN = { email: "admin@example.com", password: "demo-admin-1234" } as const;

/** Where the generated development secret lives (relative to the working directory, like data/app.db). */
const DEV_SECRET_FILE = "data/auth-secret";

const MIN_SECRET_LENGTH = 32;
const MIN_METRICS_TOKEN_LENGTH = 16;
const SMTP_EXAMPLE = "smtp://user:pass@mail.example.com:587";

// ---- small field builders: every env value arrives as a string ----

/** A whole number within bounds, e.g. a port or a byte count. */
function integer(min: number, max: number, hint: string) {
  return z.string().transform((value, ctx) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max) {
      ctx.addIssue({ code: "custom", message: `must be ${hint}, got "${value}"` });
      return z.NEVER;
    }
    return n;
  });
}

/** `on`/`off` switches; true/false/1/0/yes/no are accepted too because people type them. */
function onOff() {
  return z.string().transform((value, ctx) => {
    const v = value.toLowerCase();
    if (["on", "true", "1", "yes"].includes(v)) return true;
    if (["off", "false", "0", "no"].includes(v)) return false;
    ctx.addIssue({ code: "custom", message: `must be "on" or "off", got "${value}"` });
    return z.NEVER;
  });
}

/**
 * TRUST_PROXY: how many reverse proxies in front of the server append to X-Forwarded-For.
 * `off` = none (the socket peer is the client), `on` = one, or a whole number of them.
 */
function proxyHops() {
  return z.string().transform((value, ctx) => {
    const v = value.toLowerCase();
    if (["off", "false", "no"].includes(v)) return 0;
    if (["on", "true", "yes"].includes(v)) return 1;
    if (/^\d{1,2}$/.test(v)) return Number(v);
    ctx.addIssue({
      code: "custom",
      message: `must be "off", "on" (one proxy) or the number of trusted proxies such as 2, got "${value}"`,
    });
    return z.NEVER;
  });
}

/** Checks an origin (scheme + host + optional port, no path) and returns it normalized. */
function checkOrigin(value: string): { origin: string } | { problem: string } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { problem: `"${value}" is not a URL (expected e.g. https://example.com)` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { problem: `"${value}" must start with http:// or https://` };
  }
  if (url.pathname !== "/" || url.search || url.hash || url.username || url.password) {
    return { problem: `"${value}" must be an origin without path, query or credentials (e.g. https://example.com)` };
  }
  return { origin: url.origin };
}

function origin() {
  return z.string().transform((value, ctx) => {
    const checked = checkOrigin(value);
    if ("problem" in checked) {
      ctx.addIssue({ code: "custom", message: checked.problem });
      return z.NEVER;
    }
    return checked.origin;
  });
}

function commaList() {
  return z.string().transform((value) =>
    value
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean),
  );
}

function originList() {
  return commaList().transform((items, ctx) => {
    const origins: string[] = [];
    for (const item of items) {
      const checked = checkOrigin(item);
      if ("problem" in checked) ctx.addIssue({ code: "custom", message: checked.problem });
      else origins.push(checked.origin);
    }
    return origins;
  });
}

/** `1.1.1.1`, `127.0.0.1:5353`, `::1` or `[::1]:5353`: what node:dns `Resolver.setServers` takes. */
function dnsServers() {
  return commaList().transform((items, ctx) => {
    for (const item of items) {
      const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(item);
      const hostPort = /^([^:]+):(\d+)$/.exec(item);
      const [address, port] = bracketed
        ? [bracketed[1]!, bracketed[2]]
        : hostPort
          ? [hostPort[1]!, hostPort[2]]
          : [item];
      if (!isIP(address) || (port !== undefined && (Number(port) < 1 || Number(port) > 65535))) {
        ctx.addIssue({
          code: "custom",
          message: `"${item}" is not an IP address with an optional port (e.g. 127.0.0.1:5353)`,
        });
      }
    }
    return items;
  });
}

const text = () => z.string();

// ---- the schema ----

const socialFields = Object.fromEntries(
  SOCIAL_PROVIDER_IDS.flatMap((id) => [
    [`${id.toUpperCase()}_CLIENT_ID`, text().optional()],
    [`${id.toUpperCase()}_CLIENT_SECRET`, text().optional()],
    ...Object.keys(ENDPOINT_OVERRIDES).map((suffix) => [
      `${id.toUpperCase()}_${suffix}`,
      httpUrl("https://auth.example.com/oauth").optional(),
    ]),
  ]),
) as Record<
  `${Uppercase<SocialProviderId>}_${"CLIENT_ID" | "CLIENT_SECRET" | EndpointOverride}`,
  z.ZodOptional<z.ZodString>
>;

/**
 * Each provider's own variables (e.g. MICROSOFT_TENANT_ID), as its definition declares them.
 * Typed as no keys: only socialProviders() reads them back, through the declarations.
 */
const providerVariableFields: Record<never, never> = Object.fromEntries(
  SOCIAL_PROVIDER_IDS.flatMap((id) =>
    Object.values(SOCIAL_PROVIDERS[id].variables ?? {}).map(({ name, schema }) => [name, schema.optional()]),
  ),
);

/** Built per parse because a few rules and defaults depend on NODE_ENV. */
function schemaFor(isProduction: boolean) {
  return z.object({
    NODE_ENV: z
      .enum(["development", "production", "test"], {
        error: (issue) => `must be development, production or test, got "${String(issue.input)}"`,
      })
      .default("development"),
    PORT: integer(1, 65535, "a port number between 1 and 65535").default(3000),
    HOST: text().default("0.0.0.0"),
    BASE_URL: origin().optional(), // default depends on PORT: filled in below
    TRUSTED_ORIGINS: originList().default([]),
    // Identity-provider origins the server may reach although they resolve to private or
    // loopback addresses (tests, an IdP inside the company network). Others must be public.
    SSO_IDP_ORIGIN: originList().default([]),
    // The DNS servers that answer the TXT lookups of SSO domain verification and the address
    // lookups of outgoing requests (identity providers, webhooks), as IP or IP:port,
    // comma-separated (a local stand-in in tests); unset: the system's resolvers.
    DNS_SERVERS: dnsServers().default([]),
    // Webhook receivers the server may reach although they resolve to private or loopback
    // addresses, over plain http too (tests, a receiver inside the company network). Others
    // must be https and public (docs/decisions/0029).
    WEBHOOK_PRIVATE_ORIGINS: originList().default([]),
    // A failed delivery is retried this many times, the first after WEBHOOK_RETRY_DELAY_SECONDS,
    // each next one about twice as late (with WEBHOOK_RETRY_BACKOFF on): 12 from 40 s spread
    // over about three days. Tests shorten it.
    WEBHOOK_RETRY_LIMIT: integer(0, 100, "a number of retries such as 12").default(12),
    WEBHOOK_RETRY_DELAY_SECONDS: integer(1, 86_400, "a number of seconds such as 40").default(40),
    WEBHOOK_RETRY_BACKOFF: onOff().default(true),
    // How often an idle job worker asks the database for work (pg-boss's minimum is 500).
    JOB_POLL_INTERVAL_MS: integer(500, 60_000, "a number of milliseconds such as 1000").default(1000),
    DATABASE_URL: text()
      .refine((value) => /^(file:|postgres(ql)?:\/\/)/.test(value), {
        message: 'must start with "file:" (SQLite) or "postgres://" / "postgresql://" (PostgreSQL)',
      })
      .default("file:./data/app.db"),
    AUTH_SECRET: isProduction
      ? z
          .string({
            error: `is required in production (at least ${MIN_SECRET_LENGTH} random characters, e.g. from \`openssl rand -base64 32\`)`,
          })
          .min(MIN_SECRET_LENGTH, { message: `must be at least ${MIN_SECRET_LENGTH} characters long in production` })
      : text().optional(), // development: generated and kept in data/auth-secret
    // Production never falls back to the development outbox: its files hold live tokens.
    SMTP_URL: isProduction
      ? urlWith(
          ["smtp:", "smtps:"],
          SMTP_EXAMPLE,
          `is required in production (e.g. ${SMTP_EXAMPLE}): verification, password-reset and account-deletion emails need a mail server`,
        )
      : urlWith(["smtp:", "smtps:"], SMTP_EXAMPLE).optional(), // unset: the development outbox
    // Unset: the product's name at no-reply@ the public host (app/server/mail/index.server.ts).
    MAIL_FROM: text().optional(),
    // A message the mail server did not take is tried again this many times, the first after
    // MAIL_RETRY_DELAY_SECONDS, each next one about twice as late (with MAIL_RETRY_BACKOFF on):
    // 10 from 10 s spread over about four hours, longer than a reset link lives. Tests shorten it.
    MAIL_RETRY_LIMIT: integer(0, 100, "a number of retries such as 10").default(10),
    MAIL_RETRY_DELAY_SECONDS: integer(1, 86_400, "a number of seconds such as 10").default(10),
    MAIL_RETRY_BACKOFF: onOff().default(true),
    ADMIN_EMAIL: z.email({ message: "must be an email address" }).optional(),
    ADMIN_PASSWORD: z
      .string()
      .min(8, { message: "must be at least 8 characters long" })
      .max(128, { message: "must be at most 128 characters long" })
      .optional(),
    ADMIN_USER_IDS: commaList().default([]),
    RATE_LIMIT: onOff().default(isProduction),
    TRUST_PROXY: proxyHops().default(0),
    BODY_LIMIT: integer(1, Number.MAX_SAFE_INTEGER, "a size in bytes such as 1048576").default(1024 * 1024),
    // The lowest level written (app/server/log.server.ts reads it before this validation runs).
    LOG_LEVEL: z
      .enum(LOG_LEVELS, { error: (issue) => `must be one of ${LOG_LEVELS.join(", ")}, got "${String(issue.input)}"` })
      .default("info"),
    // Prometheus metrics at /metrics (docs/decisions/0033-metrics.md), never public by default:
    // with METRICS_TOKEN, on the public port for a caller sending it as a bearer token; with
    // METRICS_PORT, on a listener of their own at METRICS_HOST (and with the token too, when
    // both are set) and no longer on the public port. Neither: /metrics is an unknown page.
    METRICS_TOKEN: z
      .string()
      .min(MIN_METRICS_TOKEN_LENGTH, {
        message: `must be at least ${MIN_METRICS_TOKEN_LENGTH} characters long (e.g. from \`openssl rand -base64 32\`)`,
      })
      // What a bearer token may hold (RFC 6750's b64token).
      .regex(/^[\w.~+/=-]+$/, { message: "may only hold letters, digits and - . _ ~ + / =" })
      .optional(),
    METRICS_PORT: integer(1, 65535, "a port number between 1 and 65535").optional(),
    METRICS_HOST: text().default("127.0.0.1"),
    // Unset: unexpected errors are only logged; set: also sent to Sentry (app/server/error-report.server.ts).
    SENTRY_DSN: urlWith(["http:", "https:"], "https://publickey@o0.ingest.sentry.io/0").optional(),
    // Unset: no traces, and no OpenTelemetry module loaded. Set: traces go there over OTLP/HTTP
    // (the exporter also reads the other standard OTEL_* variables; app/server/tracing.server.ts).
    OTEL_EXPORTER_OTLP_ENDPOINT: urlWith(["http:", "https:"], "http://otel-collector:4318").optional(),
    // Unset: the product's name (the catalogue's brand), as email senders are named.
    OTEL_SERVICE_NAME: text().optional(),
    // "none": a deployment that does not sell (yet): plans are shown, nothing calls a provider.
    PAYMENT_PROVIDER: z
      .enum(["stripe", "polar", "none"], {
        error: (issue) => `must be "stripe", "polar" or "none", got "${String(issue.input)}"`,
      })
      .default("stripe"),
    STRIPE_SECRET_KEY: text().optional(),
    STRIPE_WEBHOOK_SECRET: text().optional(),
    STRIPE_API_BASE_URL: urlWith(["http:", "https:"], "https://api.stripe.com").optional(),
    STRIPE_PRICE_PRO_MONTHLY: text().optional(),
    STRIPE_PRICE_PRO_YEARLY: text().optional(),
    STRIPE_PRICE_TEAM_MONTHLY: text().optional(),
    STRIPE_PRICE_TEAM_YEARLY: text().optional(),
    POLAR_ACCESS_TOKEN: text().optional(),
    POLAR_WEBHOOK_SECRET: text().optional(),
    POLAR_API_BASE_URL: urlWith(["http:", "https:"], "https://api.polar.sh").optional(),
    POLAR_PRODUCT_PRO_MONTHLY: text().optional(),
    POLAR_PRODUCT_PRO_YEARLY: text().optional(),
    POLAR_PRODUCT_TEAM_MONTHLY: text().optional(),
    POLAR_PRODUCT_TEAM_YEARLY: text().optional(),
    ...socialFields,
    ...providerVariableFields,
    // An existing user with the provider's email gets the social account linked (when the
    // provider is trusted or vouches for the email); off: such a sign-in is refused.
    ACCOUNT_LINKING: onOff().default(true),
    // Providers whose emails count as verified even when they do not say so.
    TRUSTED_PROVIDERS: commaList()
      .pipe(z.array(z.enum(SOCIAL_PROVIDER_IDS, { error: (issue) => `unknown provider "${String(issue.input)}"` })))
      .default([]),
    // Who may create organizations: everyone, users with a verified email, or nobody (admins
    // still can, through the server); and how many one user may belong to.
    ORGANIZATION_CREATION: z
      .enum(["on", "verified", "off"], {
        error: (issue) => `must be on, verified or off, got "${String(issue.input)}"`,
      })
      .default("on"),
    ORGANIZATION_LIMIT: integer(1, 100_000, "a number of organizations such as 5").optional(),
    // How many members one organization may have: 100 by default, as in better-auth
    // (docs/decisions/0011, "Large organizations").
    ORGANIZATION_MEMBERSHIP_LIMIT: integer(1, 1_000_000, "a number of members such as 100").default(100),
    ORGANIZATION_DELETION: onOff().default(true),
    // Whether an organization's last team may be removed; off: remove-team refuses it
    // (UNABLE_TO_REMOVE_LAST_TEAM), so an organization that has teams keeps one.
    ORGANIZATION_ALLOW_REMOVING_ALL_TEAMS: onOff().default(false),
    // Whether a first social sign-in creates the user: always, only when the client asked
    // for it (`requestSignUp`), or never.
    SOCIAL_SIGN_UP: z
      .enum(["on", "explicit", "off"], {
        error: (issue) => `must be on, explicit or off, got "${String(issue.input)}"`,
      })
      .default("on"),
  });
}

type Parsed = z.output<ReturnType<typeof schemaFor>>;

export type Env = Omit<Parsed, "BASE_URL" | "AUTH_SECRET"> & {
  BASE_URL: string;
  AUTH_SECRET: string;
  isProduction: boolean;
  /** BASE_URL's origin followed by TRUSTED_ORIGINS, without duplicates. */
  trustedOrigins: string[];
  /** Cookies get the Secure flag when the public URL is https. */
  secureCookies: boolean;
  /** The admin ensured at start, or null when none is configured (production without ADMIN_*). */
  admin: { email: string; password: string; isDemo: boolean } | null;
  /** Social providers with both credentials set, in SOCIAL_PROVIDER_IDS order. */
  socialProviders: ProviderConfig[];
};

export type ParseEnvResult = { success: true; data: Env } | { success: false; problems: string[] };

export type ParseEnvOptions = {
  /** Supplies AUTH_SECRET outside production when it is unset. Default: random per call. */
  devSecret?: () => string;
};

/** Validates an environment; never throws and never exits. */
export function parseEnv(source: Record<string, string | undefined>, options: ParseEnvOptions = {}): ParseEnvResult {
  // Treat blank values as unset: `SMTP_URL=` in a .env file means "no SMTP", not "invalid URL".
  const input: Record<string, string> = {};
  for (const [key, value] of Object.entries(source)) {
    const trimmed = value?.trim();
    if (trimmed) input[key] = trimmed;
  }

  const isProduction = input.NODE_ENV === "production";
  const result = schemaFor(isProduction).safeParse(input);
  const problems: string[] = result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join(".") || "environment"}: ${issue.message}`);

  // Rules across variables are checked on the raw input so they are reported together with
  // the field problems above, not only after those are fixed.
  if (Boolean(input.ADMIN_EMAIL) !== Boolean(input.ADMIN_PASSWORD)) {
    const [missing, present] = input.ADMIN_EMAIL
      ? ["ADMIN_PASSWORD", "ADMIN_EMAIL"]
      : ["ADMIN_EMAIL", "ADMIN_PASSWORD"];
    problems.push(`${missing}: is required when ${present} is set`);
  }
  if (input.METRICS_PORT && Number(input.METRICS_PORT) === Number(input.PORT ?? 3000)) {
    problems.push("METRICS_PORT: must differ from PORT (the metrics listener is a second one)");
  }
  // Production sells through the chosen provider only: its keys and every plan's price must
  // be there; the other provider's variables are ignored. "none" sells nothing and needs none.
  if (isProduction) {
    const provider = input.PAYMENT_PROVIDER === "polar" ? "polar" : input.PAYMENT_PROVIDER === "none" ? null : "stripe";
    for (const variable of provider ? missingPaymentVariables(provider, input) : []) {
      problems.push(`${variable}: is required in production when PAYMENT_PROVIDER is ${provider}`);
    }
  }
  for (const id of SOCIAL_PROVIDER_IDS) {
    const idVar = `${id.toUpperCase()}_CLIENT_ID`;
    const secretVar = `${id.toUpperCase()}_CLIENT_SECRET`;
    if (input[idVar] && !input[secretVar]) problems.push(`${secretVar}: is required when ${idVar} is set`);
    if (!input[idVar] && input[secretVar]) problems.push(`${idVar}: is required when ${secretVar} is set`);
    const { name, endpoints, checkVariables } = SOCIAL_PROVIDERS[id];
    problems.push(...(checkVariables?.(input) ?? []));
    // An override of an endpoint the provider does not have would be silently ignored.
    const defaults = endpoints({});
    for (const [suffix, key] of Object.entries(ENDPOINT_OVERRIDES)) {
      const variable = `${id.toUpperCase()}_${suffix}`;
      if (!input[variable] || defaults[key]) continue;
      problems.push(
        key === "userInfoUrl"
          ? `${variable}: ${name} has no user-info endpoint (its profile comes from the ID token)`
          : `${variable}: ${name} issues no ID tokens, so it has no issuer or key set`,
      );
    }
  }

  if (!result.success || problems.length > 0) return { success: false, problems };

  const parsed = result.data;
  const baseUrl = parsed.BASE_URL ?? `http://localhost:${parsed.PORT}`;
  const authSecret = parsed.AUTH_SECRET ?? (options.devSecret ?? randomSecret)();

  let admin: Env["admin"] = null;
  if (parsed.ADMIN_EMAIL && parsed.ADMIN_PASSWORD) {
    admin = { email: parsed.ADMIN_EMAIL, password: parsed.ADMIN_PASSWORD, isDemo: false };
  } else if (!isProduction) {
    admin = { ...DEMO_ADMIN, isDemo: true };
  }

  return {
    success: true,
    data: {
      ...parsed,
      BASE_URL: baseUrl,
      AUTH_SECRET: authSecret,
      isProduction,
      trustedOrigins: [...new Set([baseUrl, ...parsed.TRUSTED_ORIGINS])],
      secureCookies: baseUrl.startsWith("https:"),
      admin,
      socialProviders: socialProviders(parsed),
    },
  };
}

/** Each enabled provider: its default endpoints, then the `<ID>_*` overrides. */
function socialProviders(parsed: Parsed): ProviderConfig[] {
  const values: Record<string, unknown> = parsed;
  const configs: ProviderConfig[] = [];
  for (const id of SOCIAL_PROVIDER_IDS) {
    const prefix = id.toUpperCase() as Uppercase<SocialProviderId>;
    const clientId = parsed[`${prefix}_CLIENT_ID`];
    const clientSecret = parsed[`${prefix}_CLIENT_SECRET`];
    if (!clientId || !clientSecret) continue;
    const variables = Object.entries(SOCIAL_PROVIDERS[id].variables ?? {});
    const extras = Object.fromEntries(variables.map(([key, { name }]) => [key, values[name]])) as ProviderExtras;
    const overrides: Partial<ProviderEndpoints> = {};
    for (const [suffix, key] of Object.entries(ENDPOINT_OVERRIDES) as [EndpointOverride, keyof ProviderEndpoints][]) {
      const value = parsed[`${prefix}_${suffix}`];
      if (value) overrides[key] = value;
    }
    configs.push({ id, clientId, clientSecret, ...SOCIAL_PROVIDERS[id].endpoints(extras), ...overrides, extras });
  }
  return configs;
}

/**
 * The variables a provider needs to sell every plan that are not set in `source`: its key, its
 * webhook secret and each plan's price (Stripe) or product (Polar). Production refuses to start
 * without them; elsewhere the billing pages name them to an admin.
 */
export function missingPaymentVariables(
  provider: "stripe" | "polar",
  source: Record<string, string | undefined>,
): string[] {
  const prefix = provider === "polar" ? "POLAR" : "STRIPE";
  const keys =
    provider === "polar"
      ? ["POLAR_ACCESS_TOKEN", "POLAR_WEBHOOK_SECRET"]
      : ["STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET"];
  const ids = ["PRO_MONTHLY", "PRO_YEARLY", "TEAM_MONTHLY", "TEAM_YEARLY"].map(
    (plan) => `${prefix}_${provider === "polar" ? "PRODUCT" : "PRICE"}_${plan}`,
  );
  return [...keys, ...ids].filter((variable) => !source[variable]?.trim());
}

/** Formats problems the way they are printed at start. */
export function formatProblems(problems: string[]): string {
  return ["Invalid environment configuration:", ...problems.map((problem) => `- ${problem}`)].join("\n");
}

function randomSecret(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * Development only: reuse the secret from data/auth-secret, or create it once, so restarts
 * keep sessions and signed tokens valid without anyone having to configure a secret.
 */
export function readOrCreateDevSecret(file = resolve(DEV_SECRET_FILE)): string {
  try {
    const existing = readFileSync(file, "utf8").trim();
    if (existing.length >= MIN_SECRET_LENGTH) return existing;
  } catch {
    // missing: create it below
  }
  const secret = randomSecret();
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

let loaded: Env | undefined;

/** The validated environment of this process; exits with the list of problems when invalid. */
export function loadEnv(): Env {
  if (loaded) return loaded;
  const result = parseEnv(process.env, { devSecret: () => readOrCreateDevSecret() });
  if (!result.success) {
    // One problem per entry, so the JSON line stays as readable as the list was.
    logger().fatal({ problems: result.problems }, "Invalid environment configuration");
    process.exit(1);
  }
  loaded = result.data;
  return loaded;
}

/**
 * `env.X` reads the validated environment, parsed on first access (not at import time, so
 * importing a module that uses env never exits a test or a build step by surprise).
 */
export const env: Env = new Proxy({} as Env, {
  get: (_, key) => Reflect.get(loadEnv(), key),
  has: (_, key) => Reflect.has(loadEnv(), key),
  ownKeys: () => Reflect.ownKeys(loadEnv()),
  getOwnPropertyDescriptor: (_, key) => Reflect.getOwnPropertyDescriptor(loadEnv(), key),
});
