import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  IdTokenError,
  KEY_SET_COOLDOWN_MS,
  KEY_SET_MAX_AGE_MS,
  KEY_SET_TIMEOUT_MS,
  verifyIdToken,
} from "./id-token.server";
import {
  SOCIAL_PROVIDERS,
  type ProviderConfig,
  type ProviderExtras,
  type SocialProviderId,
} from "./providers/index.server";

interface SigningKey {
  alg: "RS256" | "ES256";
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function signingKey(alg: SigningKey["alg"], kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { alg, kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" } };
}

// ---- a key-set server on 127.0.0.1 ----

/** What a key-set path answers: keys, an HTTP error, or nothing at all. */
type Answer = { keys: SigningKey[] } | { status: number } | "hang";

const answers = new Map<string, Answer>();
const hits = new Map<string, number>();
let server: Server;
let origin: string;
let pathCount = 0;

/** A fresh key-set URL, so each test starts with an empty cache. */
function keySetUrl(answer: Answer) {
  const path = `/keys/${++pathCount}`;
  answers.set(path, answer);
  return {
    url: `${origin}${path}`,
    answer: (next: Answer) => answers.set(path, next),
    fetches: () => hits.get(path) ?? 0,
  };
}

beforeAll(async () => {
  server = createServer((request, response) => {
    const path = request.url ?? "";
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const answer = answers.get(path);
    if (answer === "hang") return;
    if (!answer || "status" in answer) {
      response.writeHead(answer?.status ?? 404).end();
      return;
    }
    response.setHeader("content-type", "application/json");
    response.end(JSON.stringify({ keys: answer.keys.map((key) => key.jwk) }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

// ---- helpers ----

const NOW = new Date("2030-01-01T12:00:00Z");
const seconds = (date: Date) => Math.floor(date.getTime() / 1000);
const later = (ms: number) => new Date(NOW.getTime() + ms);

function configFor(id: SocialProviderId, jwksUrl: string, extras: ProviderExtras = {}): ProviderConfig {
  return {
    id,
    clientId: `${id}-client`,
    clientSecret: "secret",
    ...SOCIAL_PROVIDERS[id].endpoints(extras),
    jwksUrl,
    extras,
  };
}

/** A token as the provider would issue it at `NOW`, unless the claims say otherwise. */
function sign(config: ProviderConfig, key: SigningKey, claims: JWTPayload = {}, header: object = {}) {
  return new SignJWT({
    iss: config.issuer,
    sub: "user-1",
    aud: config.clientId,
    iat: seconds(NOW),
    exp: seconds(NOW) + 3600,
    ...claims,
  })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, ...header })
    .sign(key.privateKey);
}

/** The failure reason, or "ok". */
async function outcome(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    if (error instanceof IdTokenError) return error.reason;
    throw error;
  }
}

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");

let rsa: SigningKey;
let ec: SigningKey;
let stranger: SigningKey;

beforeAll(async () => {
  [rsa, ec, stranger] = await Promise.all([
    signingKey("RS256", "rsa-1"),
    signingKey("ES256", "ec-1"),
    // Same kid as `rsa`, different key: a forgery.
    signingKey("RS256", "rsa-1"),
  ]);
});

// ---- tests ----

describe("verifyIdToken: accepted tokens", () => {
  it("returns the claims of a genuine RS256 token", async () => {
    const config = configFor("google", keySetUrl({ keys: [rsa, ec] }).url);
    const claims = await verifyIdToken(config, await sign(config, rsa, { email: "ada@example.com" }), { now: NOW });
    expect(claims).toMatchObject({ sub: "user-1", email: "ada@example.com", iss: "https://accounts.google.com" });
  });

  it("verifies Roblox's ES256 tokens", async () => {
    const config = configFor("roblox", keySetUrl({ keys: [rsa, ec] }).url);
    expect(await outcome(verifyIdToken(config, await sign(config, ec), { now: NOW }))).toBe("ok");
  });

  it("accepts Google's scheme-less issuer, and no other provider's", async () => {
    const google = configFor("google", keySetUrl({ keys: [rsa] }).url);
    const twitch = configFor("twitch", keySetUrl({ keys: [rsa] }).url);
    const token = (config: ProviderConfig) => sign(config, rsa, { iss: config.issuer!.replace("https://", "") });
    expect(await outcome(verifyIdToken(google, await token(google), { now: NOW }))).toBe("ok");
    expect(await outcome(verifyIdToken(twitch, await token(twitch), { now: NOW }))).toBe("issuer");
  });

  it("accepts Apple tokens for the app's bundle id as well as the client id", async () => {
    const config = configFor("apple", keySetUrl({ keys: [rsa] }).url, { appBundleIdentifier: "com.example.app" });
    expect(
      await outcome(verifyIdToken(config, await sign(config, rsa, { aud: "com.example.app" }), { now: NOW })),
    ).toBe("ok");
    expect(await outcome(verifyIdToken(config, await sign(config, rsa), { now: NOW }))).toBe("ok");
  });
});

describe("verifyIdToken: rejections", () => {
  it("rejects a bad signature, an unknown kid and a non-RS256/ES256 algorithm", async () => {
    const config = configFor("linkedin", keySetUrl({ keys: [rsa] }).url);
    const check = async (token: string) => outcome(verifyIdToken(config, token, { now: NOW }));
    expect(await check(await sign(config, stranger))).toBe("signature");
    expect(await check(await sign(config, rsa, {}, { kid: "unknown" }))).toBe("signature");
    const claims = { iss: config.issuer, sub: "u", aud: config.clientId, iat: seconds(NOW), exp: seconds(NOW) + 60 };
    expect(await check(`${b64({ alg: "none" })}.${b64(claims)}.`)).toBe("signature");
    const hs256 = await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256", kid: "rsa-1" })
      .sign(new TextEncoder().encode(JSON.stringify(rsa.jwk)));
    expect(await check(hs256)).toBe("signature");
  });

  it("rejects a token for another audience or from another issuer", async () => {
    const config = configFor("huggingface", keySetUrl({ keys: [rsa] }).url);
    const check = async (claims: JWTPayload) =>
      outcome(verifyIdToken(config, await sign(config, rsa, claims), { now: NOW }));
    expect(await check({ aud: "someone-else" })).toBe("audience");
    expect(await check({ iss: "https://evil.example" })).toBe("issuer");
  });

  it("rejects an expired token, with 30 seconds of clock tolerance", async () => {
    const config = configFor("twitch", keySetUrl({ keys: [rsa] }).url);
    const check = async (exp: number) =>
      outcome(verifyIdToken(config, await sign(config, rsa, { iat: exp - 3600, exp }), { now: NOW }));
    expect(await check(seconds(NOW) - 20)).toBe("ok");
    expect(await check(seconds(NOW) - 31)).toBe("expired");
  });

  it("rejects a token not valid yet", async () => {
    const config = configFor("twitch", keySetUrl({ keys: [rsa] }).url);
    const token = await sign(config, rsa, { nbf: seconds(NOW) + 120 });
    expect(await outcome(verifyIdToken(config, token, { now: NOW }))).toBe("not_yet_valid");
  });

  it("rejects malformed tokens and tokens without the required claims", async () => {
    const config = configFor("google", keySetUrl({ keys: [rsa] }).url);
    expect(await outcome(verifyIdToken(config, "not-a-token", { now: NOW }))).toBe("malformed");
    expect(await outcome(verifyIdToken(config, await sign(config, rsa, { sub: undefined }), { now: NOW }))).toBe(
      "malformed",
    );
  });

  it("refuses providers that issue no ID tokens", async () => {
    const config: ProviderConfig = {
      id: "github",
      clientId: "c",
      clientSecret: "s",
      extras: {},
      ...SOCIAL_PROVIDERS.github.endpoints({}),
    };
    expect(await outcome(verifyIdToken(config, "a.b.c"))).toBe("unsupported");
  });
});

describe("verifyIdToken: nonce", () => {
  it("requires the expected nonce when one is given", async () => {
    const config = configFor("google", keySetUrl({ keys: [rsa] }).url);
    const check = async (claims: JWTPayload, nonce?: string) =>
      outcome(verifyIdToken(config, await sign(config, rsa, claims), { nonce, now: NOW }));
    expect(await check({ nonce: "n-1" }, "n-1")).toBe("ok");
    expect(await check({ nonce: "n-1" })).toBe("ok");
    expect(await check({ nonce: "n-2" }, "n-1")).toBe("nonce");
    expect(await check({}, "n-1")).toBe("nonce");
  });

  it("accepts the nonce's SHA-256 (hex) from Apple only", async () => {
    const hashed = createHash("sha256").update("n-1").digest("hex");
    const apple = configFor("apple", keySetUrl({ keys: [rsa] }).url);
    const google = configFor("google", keySetUrl({ keys: [rsa] }).url);
    const check = async (config: ProviderConfig) =>
      outcome(verifyIdToken(config, await sign(config, rsa, { nonce: hashed }), { nonce: "n-1", now: NOW }));
    expect(await check(apple)).toBe("ok");
    expect(await check(google)).toBe("nonce");
  });
});

describe("verifyIdToken: provider rules", () => {
  it("takes Microsoft's multi-tenant issuer from the token's tid", async () => {
    const config = configFor("microsoft", keySetUrl({ keys: [rsa] }).url, { tenantId: "common" });
    expect(config.issuer).toContain("{tenantid}");
    const tid = "11111111-2222-3333-4444-555555555555";
    const issuer = (tenant: string) => `https://login.microsoftonline.com/${tenant}/v2.0`;
    const check = async (claims: JWTPayload) =>
      outcome(verifyIdToken(config, await sign(config, rsa, claims), { now: NOW }));
    expect(await check({ tid, iss: issuer(tid) })).toBe("ok");
    expect(await check({ tid, iss: issuer("99999999-2222-3333-4444-555555555555") })).toBe("issuer");
    expect(await check({ iss: issuer(tid) })).toBe("issuer");
    expect(await check({ tid, iss: config.issuer })).toBe("issuer");
  });

  it("holds a single-tenant Microsoft app to its own tenant", async () => {
    const tenant = "11111111-2222-3333-4444-555555555555";
    const config = configFor("microsoft", keySetUrl({ keys: [rsa] }).url, { tenantId: tenant });
    const check = async (tid: string) =>
      outcome(
        verifyIdToken(config, await sign(config, rsa, { tid, iss: config.issuer!.replace(tenant, tid) }), { now: NOW }),
      );
    expect(await check(tenant)).toBe("ok");
    expect(await check("99999999-2222-3333-4444-555555555555")).toBe("issuer");
  });

  it("rejects Apple tokens issued over an hour ago; other providers only look at exp", async () => {
    const apple = configFor("apple", keySetUrl({ keys: [rsa] }).url);
    const google = configFor("google", keySetUrl({ keys: [rsa] }).url);
    const check = async (config: ProviderConfig, age: number) =>
      outcome(verifyIdToken(config, await sign(config, rsa, { iat: seconds(NOW) - age }), { now: NOW }));
    expect(await check(apple, 50 * 60)).toBe("ok");
    expect(await check(apple, 2 * 3600)).toBe("too_old");
    expect(await check(google, 2 * 3600)).toBe("ok");
  });
});

describe("verifyIdToken: the key-set cache", () => {
  it("uses a 5 s timeout, a 10 min cache and a 30 s cooldown", () => {
    expect([KEY_SET_TIMEOUT_MS, KEY_SET_MAX_AGE_MS, KEY_SET_COOLDOWN_MS]).toEqual([5_000, 600_000, 30_000]);
  });

  it("fetches the key set once for concurrent and later tokens, again once it is 10 minutes old", async () => {
    const keys = keySetUrl({ keys: [rsa] });
    const config = configFor("google", keys.url);
    const at = async (when: Date) =>
      outcome(
        verifyIdToken(config, await sign(config, rsa, { iat: seconds(when), exp: seconds(when) + 60 }), { now: when }),
      );
    expect(await Promise.all([at(NOW), at(NOW)])).toEqual(["ok", "ok"]);
    expect(await at(later(KEY_SET_MAX_AGE_MS - 1000))).toBe("ok");
    expect(keys.fetches()).toBe(1);
    expect(await at(later(KEY_SET_MAX_AGE_MS))).toBe("ok");
    expect(keys.fetches()).toBe(2);
  });

  it("refetches for an unknown kid, at most once per 30 s", async () => {
    const keys = keySetUrl({ keys: [rsa] });
    const config = configFor("google", keys.url);
    const rotated = await signingKey("RS256", "rsa-2");
    const at = async (key: SigningKey, when: Date) =>
      outcome(
        verifyIdToken(config, await sign(config, key, { iat: seconds(when), exp: seconds(when) + 60 }), { now: when }),
      );
    expect(await at(rsa, NOW)).toBe("ok");
    keys.answer({ keys: [rsa, rotated] });
    // Within the cooldown of the first fetch: no refetch, the kid stays unknown.
    expect(await at(rotated, later(10_000))).toBe("signature");
    expect(keys.fetches()).toBe(1);
    expect(await at(rotated, later(KEY_SET_COOLDOWN_MS))).toBe("ok");
    expect(keys.fetches()).toBe(2);
    // A kid unknown even now does not fetch again within 30 s of that refetch.
    expect(await at(await signingKey("RS256", "rsa-3"), later(KEY_SET_COOLDOWN_MS + 10_000))).toBe("signature");
    expect(keys.fetches()).toBe(2);
  });

  it("after a failed fetch, fetches again only once 30 s have passed", async () => {
    const keys = keySetUrl({ status: 500 });
    const config = configFor("google", keys.url);
    const at = async (when: Date) =>
      outcome(
        verifyIdToken(config, await sign(config, rsa, { iat: seconds(when), exp: seconds(when) + 60 }), { now: when }),
      );
    expect(await at(NOW)).toBe("keys_unavailable");
    keys.answer({ keys: [rsa] });
    expect(await at(later(KEY_SET_COOLDOWN_MS - 1000))).toBe("keys_unavailable");
    expect(keys.fetches()).toBe(1);
    expect(await at(later(KEY_SET_COOLDOWN_MS))).toBe("ok");
    expect(keys.fetches()).toBe(2);
  });

  it("keeps using fresh keys when a refetch for an unknown kid fails", async () => {
    const keys = keySetUrl({ keys: [rsa] });
    const config = configFor("google", keys.url);
    const at = async (key: SigningKey, when: Date) =>
      outcome(
        verifyIdToken(config, await sign(config, key, { iat: seconds(when), exp: seconds(when) + 60 }), { now: when }),
      );
    expect(await at(rsa, NOW)).toBe("ok");
    keys.answer({ status: 503 });
    expect(await at(ec, later(KEY_SET_COOLDOWN_MS))).toBe("keys_unavailable");
    expect(await at(rsa, later(KEY_SET_COOLDOWN_MS + 1000))).toBe("ok");
    expect(keys.fetches()).toBe(2);
  });

  it("gives up on a key-set server that does not answer after 5 s", { timeout: 15_000 }, async () => {
    const keys = keySetUrl("hang");
    const config = configFor("google", keys.url);
    const token = await sign(config, rsa);
    const started = performance.now();
    expect(await outcome(verifyIdToken(config, token, { now: NOW }))).toBe("keys_unavailable");
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(KEY_SET_TIMEOUT_MS - 50);
    expect(elapsed).toBeLessThan(KEY_SET_TIMEOUT_MS + 1500);
    expect(keys.fetches()).toBe(1);
  });
});
