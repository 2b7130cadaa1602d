import { createHash, randomInt } from "node:crypto";
import { prisma } from "~/server/db.server";
import { loadEnv } from "~/server/env.server";
import { parseCookies, serializeCookie, sign, unsign } from "./cookies.server";

export const SESSION_EXPIRES_IN = 7 * 24 * 60 * 60; // seconds

const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A random [A-Za-z0-9] string from the CSPRNG, without modulo bias. */
export function randomToken(length = 32): string {
  let out = "";
  for (let i = 0; i < length; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return out;
}

/** Only this hash is stored, so a leaked database grants no live session. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function sessionCookieName(): string {
  return loadEnv().secureCookies ? "__Secure-app.session_token" : "app.session_token";
}

export const sessionUserSelect = {
  id: true,
  email: true,
  name: true,
  image: true,
  role: true,
  emailVerified: true,
} as const;

export type SessionUser = {
  id: string;
  email: string;
  name: string;
  image: string | null;
  role: string;
  emailVerified: boolean;
};

export async function createSession(
  userId: string,
  meta: { ipAddress?: string | null; userAgent?: string | null } = {},
): Promise<{ token: string; cookie: string; expiresAt: Date }> {
  const token = randomToken();
  const expiresAt = new Date(Date.now() + SESSION_EXPIRES_IN * 1000);
  await prisma.session.create({
    data: {
      userId,
      token: hashToken(token),
      expiresAt,
      ipAddress: meta.ipAddress ?? null,
      userAgent: meta.userAgent ?? null,
    },
  });
  const { AUTH_SECRET, secureCookies } = loadEnv();
  const value = encodeURIComponent(`${token}.${sign(token, AUTH_SECRET)}`);
  const cookie = serializeCookie(sessionCookieName(), value, {
    maxAge: SESSION_EXPIRES_IN,
    secure: secureCookies,
  });
  return { token, cookie, expiresAt };
}

/** Reads the session cookie; expired sessions are deleted and read as null. */
export async function getSessionUser(request: Request): Promise<SessionUser | null> {
  const token = sessionTokenFrom(request);
  if (!token) return null;
  const session = await prisma.session.findUnique({
    where: { token: hashToken(token) },
    select: { id: true, expiresAt: true, user: { select: sessionUserSelect } },
  });
  if (!session) return null;
  if (session.expiresAt <= new Date()) {
    await prisma.session.deleteMany({ where: { id: session.id } });
    return null;
  }
  return session.user;
}

function sessionTokenFrom(request: Request): string | null {
  const raw = parseCookies(request.headers.get("Cookie")).get(sessionCookieName());
  if (!raw) return null;
  try {
    return unsign(decodeURIComponent(raw), loadEnv().AUTH_SECRET);
  } catch {
    return null; // malformed percent-encoding
  }
}

/** Ends the request's session (if any) and returns the headers that clear its cookie. */
export async function signOut(request: Request): Promise<Headers> {
  const token = sessionTokenFrom(request);
  if (token) await prisma.session.deleteMany({ where: { token: hashToken(token) } });
  const cookie = serializeCookie(sessionCookieName(), "", { maxAge: 0, secure: loadEnv().secureCookies });
  return new Headers({ "Set-Cookie": cookie });
}
