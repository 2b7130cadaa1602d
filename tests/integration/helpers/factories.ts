/**
 * The rows a test starts from, made in-process: users (with a password unless told
 * otherwise), organizations with their members, and sessions, either made by the app's own
 * session service or signed in through the API as a browser would.
 *
 * Rows go to the database this process points at (startTestApp sets it up); a user can go to
 * another client (`db`), as in the tests that run two instances or reach the database through
 * a proxy.
 */
import bcrypt from "bcryptjs";
import { expect } from "vitest";
import type { AuthSession, RequestMeta } from "~/server/auth/session.server";
import type { Database } from "~/server/db.server";
import { applySetCookies, type TestClient } from "./auth-client";
import { noteSecret } from "./secrets";

/** The password of the users made here, unless a test gives another. */
export const PASSWORD = "correct horse battery";
noteSecret("the factories' password", PASSWORD);

let counter = 0;
/** A name no other call of this run returned: `<label>-<time>-<n>`, lower-case but for the label. */
export const unique = (label: string) => `${label}-${Date.now().toString(36)}-${++counter}`;
export const uniqueEmail = (label: string) => `${unique(label)}@example.com`;

/** Imported when called: the client is made for the database the environment names by then. */
const appDatabase = async () => (await import("~/server/db.server")).prisma;

interface UserOptions {
  email?: string;
  name?: string;
  /** Whether the email address is verified (default true). */
  verified?: boolean;
  role?: string;
  id?: string;
  /** The password of the user's credential account (default PASSWORD); null makes none. */
  password?: string | null;
  db?: Database;
}

/** A user made directly in the database; a password is hashed at bcrypt cost 4, which keeps tests fast. */
export async function createUser(options: UserOptions = {}) {
  const db = options.db ?? (await appDatabase());
  const password = options.password === undefined ? PASSWORD : options.password;
  noteSecret("a user's password", password);
  const user = await db.user.create({
    data: {
      ...(options.id && { id: options.id }),
      email: options.email ?? uniqueEmail("user"),
      name: options.name ?? "Test User",
      emailVerified: options.verified ?? true,
      ...(options.role && { role: options.role }),
    },
  });
  if (password !== null) {
    await db.account.create({
      data: { providerId: "credential", accountId: user.id, userId: user.id, password: bcrypt.hashSync(password, 4) },
    });
  }
  return user;
}

/** An organization made directly in the database, with its members in the roles given. */
export async function createOrganization(
  options: { name?: string; members?: { userId: string; role: string }[] } = {},
) {
  return (await appDatabase()).organization.create({
    data: { name: options.name ?? "Test Org", slug: unique("org"), members: { create: options.members ?? [] } },
    include: { members: true },
  });
}

/**
 * Signs `who` (a client, or anything with a cookie jar) in as `userId` with a session made
 * in-process by the app's session service, as a sign-in would make it; this works for users
 * the sign-in endpoint refuses (unverified, without a password). Returns `who`.
 */
export async function signInInProcess<T extends { jar: Map<string, string> }>(
  who: T,
  userId: string,
  meta: Partial<RequestMeta> = {},
) {
  const { createSession } = await import("~/server/auth/session.server");
  applySetCookies(who.jar, (await createSession(userId, meta)).setCookies);
  return who;
}

/** A session made in-process for `userId`, as a service verb receives its caller. */
export async function sessionFor(userId: string, meta: Partial<RequestMeta> = {}): Promise<AuthSession> {
  const { createSession } = await import("~/server/auth/session.server");
  const { session, user } = await createSession(userId, meta);
  return { session, user };
}

/** Signs `who` in through the API's password sign-in, which must succeed; returns `who`. */
export async function signInWithPassword<T extends TestClient>(who: T, email: string, password = PASSWORD) {
  expect((await who.client.signIn.email({ email, password })).error).toBeNull();
  return who;
}

/**
 * The Cookie header of a new in-process session for `userId`, with its token only: without
 * the cookie cache, the server reads the session from the database on every request.
 */
export async function sessionTokenCookie(userId: string) {
  const { jar } = await signInInProcess({ jar: new Map<string, string>() }, userId);
  return `app.session_token=${jar.get("app.session_token")}`;
}
