import { exportPKCS8, generateKeyPair, jwtVerify, decodeProtectedHeader } from "jose";
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SOCIAL_PROVIDERS, type ProviderConfig } from "./providers/index.server";
import { SocialStrategy } from "./strategy.server";

// A token endpoint that records what each client sends and answers like a provider.
let server: Server;
let tokenUrl = "";
const received: { headers: Record<string, string | string[] | undefined>; form: URLSearchParams }[] = [];

beforeAll(async () => {
  // The strategy reads BASE_URL for its callback (vitest sets it to Vite's "/").
  process.env.BASE_URL = "http://localhost:3000";
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      received.push({ headers: req.headers, form: new URLSearchParams(body) });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ access_token: `access-${received.length}`, token_type: "bearer", expires_in: 3600 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  tokenUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/token`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function strategyFor(id: "apple" | "reddit" | "tiktok", clientSecret: string, extras = {}) {
  const definition = SOCIAL_PROVIDERS[id];
  const config: ProviderConfig = {
    id,
    clientId: `${id}-client`,
    clientSecret,
    ...definition.endpoints({}),
    tokenUrl,
    extras,
  };
  return new SocialStrategy(definition, config, () => Promise.resolve(null));
}

describe("token requests", () => {
  it("signs Apple's client secret with the team's .p8 key, and reuses it while it is valid", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
    const pem = await exportPKCS8(privateKey);
    // As an environment variable often carries it: on one line, with literal \n.
    const strategy = strategyFor("apple", pem.replace(/\n/g, "\\n"), { teamId: "TEAM123456", keyId: "KEY1234567" });
    const tokens = await strategy.refreshToken("refresh-1");
    expect(tokens.accessToken()).toMatch(/^access-/);
    const form = received.at(-1)!.form;
    expect(form.get("client_id")).toBe("apple-client");
    expect(form.get("grant_type")).toBe("refresh_token");
    const secret = form.get("client_secret")!;
    expect(decodeProtectedHeader(secret)).toEqual({ alg: "ES256", kid: "KEY1234567" });
    const { payload } = await jwtVerify(secret, publicKey, { audience: "https://appleid.apple.com" });
    expect(payload).toMatchObject({ iss: "TEAM123456", sub: "apple-client" });
    expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(180 * 24 * 3600); // Apple's limit: 6 months

    await strategy.refreshToken("refresh-2");
    expect(received.at(-1)!.form.get("client_secret")).toBe(secret);
  });

  it("sends a ready-made Apple client secret as it is", async () => {
    await strategyFor("apple", "eyJ.ready-made.jwt").refreshToken("r");
    expect(received.at(-1)!.form.get("client_secret")).toBe("eyJ.ready-made.jwt");
  });

  it("uses HTTP Basic where the provider wants it, and TikTok's client_key", async () => {
    await strategyFor("reddit", "rd-secret").refreshToken("r");
    const reddit = received.at(-1)!;
    expect(reddit.headers.authorization).toBe(`Basic ${btoa("reddit-client:rd-secret")}`);
    expect(reddit.form.has("client_secret")).toBe(false);

    await strategyFor("tiktok", "tt-secret").refreshToken("r");
    const tiktok = received.at(-1)!.form;
    expect(tiktok.get("client_key")).toBe("tiktok-client");
    expect(tiktok.has("client_id")).toBe(false);
    expect(tiktok.get("client_secret")).toBe("tt-secret");
  });
});
