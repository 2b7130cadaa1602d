/**
 * Mail through a mail-server outage, with two instances on one database
 * (docs/decisions/0032-mail-through-the-queue.md). While SMTP is down, requests on both
 * instances that send mail (a sign-up's verification, a password reset, an invitation, a
 * two-factor code) answer as usual; their messages wait in the job queue, sealed, and the
 * workers of both instances keep trying. Once SMTP is back on the same port, every message
 * arrives exactly once. Then a message whose every attempt fails: an error line without its
 * link, and the job marked failed; and one whose recipient the mail server refuses for good,
 * failed at its first attempt.
 *
 * On PostgreSQL the instances share pg-boss's queue (each job to one worker, SKIP LOCKED); on
 * SQLite they are two processes on one file sharing plainjob's (each job claimed in an
 * immediate transaction). Both run here.
 */
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTestClient } from "./helpers/auth-client";
import { createTestDatabase, type TestDatabase } from "./helpers/database";
import {
  createOrganization,
  createUser,
  PASSWORD,
  signInInProcess,
  signInWithPassword,
  uniqueEmail,
} from "./helpers/factories";
import { startMailbox, type Mailbox } from "./helpers/mailbox";
import { freePort, startServer, type RunningServer } from "./helpers/server";

const SECRET = "integration-test-secret-mail-outage-0123456789";

/** Mail the mail server refuses is tried again every second (for a minute), and found half a second after. */
const FAST_RETRIES = {
  MAIL_RETRY_LIMIT: "60",
  MAIL_RETRY_DELAY_SECONDS: "1",
  MAIL_RETRY_BACKOFF: "off",
  JOB_POLL_INTERVAL_MS: "500",
};

/** Every stored payload of the mail jobs, as text, straight from the queue's tables. */
async function queuedMail(databaseUrl: string): Promise<{ data: string; failed: boolean }[]> {
  if (/^postgres(ql)?:/.test(databaseUrl)) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ data: string; failed: boolean }>(
        `SELECT data::text AS data, state = 'failed' AS failed FROM pgboss.job WHERE name = 'mail'
         UNION ALL SELECT data::text, state = 'failed' FROM pgboss.archive WHERE name = 'mail'`,
      );
      return rows;
    } finally {
      await client.end();
    }
  }
  const file = new Database(databaseUrl.slice("file:".length), { readonly: true, timeout: 5000 });
  try {
    // plainjob's status 3 is failed.
    const rows = file.prepare("SELECT data, status FROM plainjob_jobs WHERE type = 'mail'").all() as {
      data: string;
      status: number;
    }[];
    return rows.map((row) => ({ data: row.data, failed: row.status === 3 }));
  } finally {
    file.close();
  }
}

/** Waits for `condition`, polling, for state that has no event to await. */
async function eventually(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const countOf = (text: string, pattern: RegExp) => (text.match(pattern) ?? []).length;

/** A JSON POST to `server`'s auth API, as a browser on its origin sends it. */
const postAuth = (server: RunningServer, path: string, body: object) =>
  fetch(`${server.url}/api/auth${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: server.url },
    body: JSON.stringify(body),
  });

describe("an SMTP outage with two instances", () => {
  let db: TestDatabase;
  let a: RunningServer;
  let b: RunningServer;
  let smtpPort: number;
  let mailbox: Mailbox | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
    smtpPort = await freePort();
    // Nothing listens on the mail server's port yet: it is down from the start.
    const env = {
      DATABASE_URL: db.url,
      AUTH_SECRET: SECRET,
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      ...FAST_RETRIES,
    };
    [a, b] = await Promise.all([startServer(env), startServer(env)]);
    Object.assign(process.env, { DATABASE_URL: db.url, AUTH_SECRET: SECRET, BASE_URL: a.url });
  });

  afterAll(async () => {
    const { closeDatabase } = await import("~/server/db.server");
    await closeDatabase();
    await Promise.all([a?.stop(), b?.stop()]);
    await mailbox?.close();
    await db?.drop();
  });

  /** On `server`: a sign-up, a reset, an invitation and a two-factor code; the four addresses they mail. */
  async function mailingRequests(server: RunningServer): Promise<string[]> {
    const api = (path: string, body: object) => postAuth(server, path, body);
    const newcomer = uniqueEmail("newcomer");
    expect((await api("/sign-up/email", { email: newcomer, password: PASSWORD, name: "Newcomer" })).status).toBe(200);

    const forgetful = await createUser({ email: uniqueEmail("forgetful") });
    expect(
      (await api("/request-password-reset", { email: forgetful.email, redirectTo: "/reset-password" })).status,
    ).toBe(200);

    const owner = await createUser();
    const organization = await createOrganization({ members: [{ userId: owner.id, role: "owner" }] });
    const onOwner = await signInInProcess(makeTestClient(server.url), owner.id);
    const invitee = uniqueEmail("invitee");
    const invited = await onOwner.client.organization.inviteMember({
      email: invitee,
      role: "member",
      organizationId: organization.id,
    });
    expect(invited.error).toBeNull();

    const careful = await createUser({ email: uniqueEmail("careful") });
    const setUp = await signInWithPassword(makeTestClient(server.url), careful.email);
    expect((await setUp.client.twoFactor.enable({ password: PASSWORD, method: "otp" })).error).toBeNull();
    const browser = makeTestClient(server.url);
    expect((await browser.client.signIn.email({ email: careful.email, password: PASSWORD })).data).toMatchObject({
      twoFactorRedirect: true,
    });
    expect((await browser.client.twoFactor.sendOtp()).error).toBeNull();

    return [newcomer, forgetful.email, invitee, careful.email];
  }

  it("delivers every message made on either instance exactly once after the mail server is back", async () => {
    const addresses = [...(await mailingRequests(a)), ...(await mailingRequests(b))];
    const stdout = () => a.stdout() + b.stdout();

    // Both instances' workers try and fail while it is down.
    await eventually(
      () => countOf(stdout(), /email failed, trying again later/g) >= 2 * addresses.length,
      20_000,
      "each email to have been tried twice",
    );
    // What waits in the queue names no recipient and holds no link: the messages are sealed.
    const waiting = await queuedMail(db.url);
    expect(waiting.length).toBeGreaterThanOrEqual(addresses.length);
    for (const { data } of waiting) {
      for (const address of addresses) expect(data).not.toContain(address);
      expect(data).not.toMatch(/https?:|token/i);
    }

    mailbox = await startMailbox({ port: smtpPort });
    const received = await Promise.all(addresses.map((address) => mailbox!.waitFor(address, undefined, 15_000)));
    expect(received.map((mail) => mail.subject)).toEqual(
      Array(2)
        .fill([
          "Verify your email address",
          "Reset your password",
          expect.stringContaining("invited"),
          "Your sign-in code",
        ])
        .flat(),
    );
    // Long enough for a second delivery of any of them (a retry comes within 1.5 s).
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(mailbox.messages).toHaveLength(addresses.length);
    const messageIds = mailbox.messages.map((mail) => /^Message-ID: (.+)$/im.exec(mail.raw)?.[1]);
    expect(new Set(messageIds).size).toBe(addresses.length);
    expect(countOf(stdout(), /"msg":"Email sent"/g)).toBe(addresses.length);

    // Delivered, the queue still holds none of the tokens the messages' links carried.
    const tokens = mailbox.messages
      .flatMap((mail) => mail.links.map((link) => new URL(link)))
      .flatMap((url) => [...url.searchParams.values(), url.pathname.split("/").pop()!])
      .filter((value) => value.length >= 20);
    expect(tokens.length).toBeGreaterThanOrEqual(6); // 2 verification, 2 reset and 2 invitation links
    const stored = (await queuedMail(db.url)).map((row) => row.data).join("\n");
    for (const token of tokens) expect(stored).not.toContain(token);
  }, 90_000);
});

describe("a message every attempt of which fails", () => {
  let db: TestDatabase;
  let server: RunningServer;

  beforeAll(async () => {
    db = await createTestDatabase();
    // A port nothing listens on, and a single retry.
    const SMTP_URL = `smtp://127.0.0.1:${await freePort()}`;
    server = await startServer({
      DATABASE_URL: db.url,
      AUTH_SECRET: SECRET,
      SMTP_URL,
      ...FAST_RETRIES,
      MAIL_RETRY_LIMIT: "1",
    });
    Object.assign(process.env, { DATABASE_URL: db.url, AUTH_SECRET: SECRET, BASE_URL: server.url });
  });

  afterAll(async () => {
    const { closeDatabase } = await import("~/server/db.server");
    await closeDatabase();
    await server?.stop();
    await db?.drop();
  });

  it("is logged as an error after its last attempt, without recipient or link, and marked failed in the queue", async () => {
    const email = uniqueEmail("unlucky");
    const res = await postAuth(server, "/sign-up/email", { email, password: PASSWORD, name: "Unlucky" });
    expect(res.status).toBe(200);

    await eventually(() => server.stdout().includes('"msg":"Email not sent"'), 15_000, "the email to be given up on");
    const lines = server.stdout().split("\n");
    const failed = lines.find((line) => line.includes('"msg":"Email not sent"'))!;
    const parsed = JSON.parse(failed) as { level: number; err: { message: string } };
    expect(parsed.level).toBe(50);
    expect(parsed.err.message).toMatch(/^The verify-email email was not sent after 2 attempts: .*ECONNREFUSED/);
    const mailLines = lines.filter((line) => line.includes("verify-email"));
    expect(mailLines).toHaveLength(2); // the first attempt's warning, the last one's error
    for (const line of mailLines) {
      expect(line).not.toContain(email);
      expect(line).not.toMatch(/https?:\/\/[^"]*token/);
    }
    await eventually(async () => (await queuedMail(db.url)).some((row) => row.failed), 5_000, "the job to be failed");
  });
});

describe("a recipient the mail server refuses for good", () => {
  let db: TestDatabase;
  let mailbox: Mailbox;
  let server: RunningServer;

  beforeAll(async () => {
    db = await createTestDatabase();
    // 550 for any address at nowhere.test; sixty retries, a second apart, would be allowed.
    mailbox = await startMailbox({ refuses: (recipient) => recipient.endsWith("@nowhere.test") });
    server = await startServer({ DATABASE_URL: db.url, AUTH_SECRET: SECRET, SMTP_URL: mailbox.url, ...FAST_RETRIES });
    Object.assign(process.env, { DATABASE_URL: db.url, AUTH_SECRET: SECRET, BASE_URL: server.url });
  });

  afterAll(async () => {
    const { closeDatabase } = await import("~/server/db.server");
    await closeDatabase();
    await server?.stop();
    await mailbox?.close();
    await db?.drop();
  });

  it("is given up on at its first refusal and failed in the queue, while other mail still goes out", async () => {
    const signUp = (email: string) =>
      postAuth(server, "/sign-up/email", { email, password: PASSWORD, name: "Refused" });
    const refused = `${uniqueEmail("gone").split("@")[0]}@nowhere.test`;
    expect((await signUp(refused)).status).toBe(200);

    await eventually(() => server.stdout().includes('"msg":"Email not sent"'), 15_000, "the email to be given up on");
    const failed = server
      .stdout()
      .split("\n")
      .find((line) => line.includes('"msg":"Email not sent"'))!;
    expect((JSON.parse(failed) as { err: { message: string } }).err.message).toMatch(
      /^The verify-email email was not sent after 1 attempt: .*550/,
    );
    await eventually(async () => (await queuedMail(db.url)).some((row) => row.failed), 5_000, "the job to be failed");

    // No second attempt follows: three retry delays later, still one line about it, no warning.
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    const lines = server
      .stdout()
      .split("\n")
      .filter((line) => line.includes("verify-email"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain(refused);
    expect(await queuedMail(db.url)).toEqual([expect.objectContaining({ failed: true })]);

    // The refusal was that message's alone.
    const welcome = uniqueEmail("welcome");
    expect((await signUp(welcome)).status).toBe(200);
    expect((await mailbox.waitFor(welcome)).subject).toBeTruthy();
  });
});

describe("workers that poll once a minute", () => {
  let db: TestDatabase;
  let mailbox: Mailbox;
  let server: RunningServer;

  beforeAll(async () => {
    db = await createTestDatabase();
    mailbox = await startMailbox();
    server = await startServer({
      DATABASE_URL: db.url,
      AUTH_SECRET: SECRET,
      SMTP_URL: mailbox.url,
      JOB_POLL_INTERVAL_MS: "60000",
    });
  });

  afterAll(async () => {
    await server?.stop();
    await mailbox?.close();
    await db?.drop();
  });

  it("send a request's email at once: queueing it wakes this instance's idle worker", async () => {
    // Past the workers' first look at the queue: they are asleep until woken or a minute passes.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    for (const round of [1, 2]) {
      const email = uniqueEmail(`prompt-${round}`);
      const res = await postAuth(server, "/sign-up/email", { email, password: PASSWORD, name: "Prompt" });
      expect(res.status).toBe(200);
      const answered = Date.now();
      await mailbox.waitFor(email, undefined, 5_000);
      expect(Date.now() - answered).toBeLessThan(2_000);
    }
  });
});
