/**
 * Every way of signing in (password, verification link, social, passkey, the second step)
 * ends in `signInSession`: the ban rule, the two-factor gate, the new session and its audit
 * row. The gate lives here too, so that two-factor's verbs (which finish a pending sign-in
 * through `signInSession`) and the first factors both sit above it.
 *
 * The gate: when the first factor was right for a user with two-factor (and the browser is
 * not a trusted one), no session is made; a PendingSignIn row, named by a short-lived signed
 * cookie, waits for the second step, and `SecondFactorRequired` is thrown.
 *
 * Enforced single sign-on is checked here too, for the same reason: an organization that
 * requires it for its verified domains must see every other way in refused (SsoRequired).
 */
import { audit } from "~/server/audit.server";
import { prisma, type Prisma } from "~/server/db.server";
import { AppError, isAppError } from "~/server/errors.server";
import {
  clearSessionCookies,
  cookieName,
  createSession,
  deleteSessions,
  hashToken,
  randomToken,
  refuseBanned,
  signedCookie,
  trustDeviceCookieName,
  type RequestMeta,
} from "./session.server";

/** The pending sign-in (and its cookie) lasts 10 minutes. */
const PENDING_MAX_AGE = 10 * 60;
const TRUST_DEVICE_MAX_AGE = 30 * 24 * 60 * 60;

export const pendingCookieName = () => cookieName("two_factor");

type TwoFactorMethod = "totp" | "otp";

/** Thrown instead of a session when the second step is due; carries the cookies to send. */
export class SecondFactorRequired extends Error {
  constructor(
    readonly methods: TwoFactorMethod[],
    readonly setCookies: string[],
  ) {
    super("Second factor required");
  }
}

/**
 * Called by `signInSession` before it makes a session. Returns the trust cookie to send when
 * a trusted browser skips the step (the record and cookie are replaced on every use), null
 * when the user has no two-factor; throws SecondFactorRequired otherwise.
 */
async function secondFactorGate(
  userId: string,
  meta: Partial<RequestMeta>,
  details: { method: string; rememberMe?: boolean },
): Promise<string | null> {
  const user = await prisma.user.findUnique({ where: { id: userId }, select: { twoFactorEnabled: true } });
  if (!user?.twoFactorEnabled) return null;
  // No second step for a banned user: the session it leads to would be refused.
  await refuseBanned(userId);
  const trusted = meta.trustedDevice ? await takeTrustedDevice(userId, meta.trustedDevice) : false;
  if (trusted) return trustDevice(userId, meta);

  const token = `2fa-${randomToken(20)}`;
  await prisma.pendingSignIn.create({
    data: {
      tokenHash: hashToken(token),
      userId,
      method: details.method,
      rememberMe: details.rememberMe ?? true,
      expiresAt: new Date(Date.now() + PENDING_MAX_AGE * 1000),
    },
  });
  throw new SecondFactorRequired(await methodsOf(userId), [
    ...clearSessionCookies(),
    signedCookie(pendingCookieName(), token, PENDING_MAX_AGE),
  ]);
}

export async function methodsOf(userId: string): Promise<TwoFactorMethod[]> {
  const row = await prisma.twoFactor.findUnique({ where: { userId }, select: { secret: true, verified: true } });
  return row?.secret && row.verified ? ["totp", "otp"] : ["otp"];
}

/** The trusted-device record the cookie names, when it is the user's and alive; it is spent. */
async function takeTrustedDevice(userId: string, token: string): Promise<boolean> {
  const { count } = await prisma.trustedDevice.deleteMany({
    where: { tokenHash: hashToken(token), userId, expiresAt: { gt: new Date() } },
  });
  return count === 1;
}

/** A new trusted-device record for this browser, and the cookie naming it. */
export async function trustDevice(userId: string, meta: Partial<RequestMeta>): Promise<string> {
  const token = `trust-device-${randomToken(32)}`;
  await prisma.trustedDevice.create({
    data: {
      userId,
      tokenHash: hashToken(token),
      userAgent: meta.userAgent ?? null,
      expiresAt: new Date(Date.now() + TRUST_DEVICE_MAX_AGE * 1000),
    },
  });
  return signedCookie(trustDeviceCookieName(), token, TRUST_DEVICE_MAX_AGE);
}

/**
 * SSO_REQUIRED, with the address the refused sign-in was for: the caller proved the first
 * factor for it, and the pages (and API clients) send it on to the single sign-on form.
 */
export class SsoRequired extends AppError {
  constructor(readonly email: string) {
    super("SSO_REQUIRED");
  }

  override toJSON() {
    return { ...super.toJSON(), email: this.email };
  }
}

/** How single sign-on's own sign-ins name their method: `sso:<providerId>`. */
export const SSO_METHOD_PREFIX = "sso:";

type Db = Prisma.TransactionClient;

/**
 * The organization that requires single sign-on for `email`: one whose verified domain it is
 * and that requires it. Only a verified domain counts: an organization cannot lock people out
 * of an address it has not proved it controls.
 */
async function enforcingOrganization(db: Db, email: string): Promise<string | null> {
  const domain = email.split("@").pop();
  if (!domain) return null;
  const enforced = await db.ssoDomain.findFirst({
    where: { domain, verifiedAt: { not: null }, provider: { organization: { ssoRequired: true } } },
    select: { provider: { select: { organizationId: true } } },
  });
  return enforced?.provider.organizationId ?? null;
}

/** How a session made through one of `organizationId`'s own connections records its sign-in. */
async function ownSsoMethods(db: Db, organizationId: string): Promise<string[]> {
  const providers = await db.ssoProvider.findMany({ where: { organizationId }, select: { providerId: true } });
  return providers.map((provider) => `${SSO_METHOD_PREFIX}${provider.providerId}`);
}

/**
 * Enforced single sign-on: a sign-in by any other way of an email whose domain is a verified
 * domain of an organization requiring SSO is refused. The sso layer sits above auth, so the
 * rule reads its two tables here directly instead of being a gate that layer registers: a
 * registration exists only once its module has been loaded, and a sign-in path that never
 * loads it (a page, a script) would slip past it.
 */
async function emailRequiringSso(userId: string, method: string): Promise<string | null> {
  const user = await prisma.user.findUnique({ where: { id: userId }, select: { email: true } });
  const organizationId = user && (await enforcingOrganization(prisma, user.email));
  if (!user || !organizationId) return null;
  // Only the enforcing organization's own connections satisfy it: another organization's
  // identity provider (one its user set up, say) is no sign-on of the organization requiring it.
  return (await ownSsoMethods(prisma, organizationId)).includes(method) ? null : user.email;
}

/**
 * The sessions enforced single sign-on ends for an account already in: every one not signed in
 * through one of `organizationId`'s own connections. An admin's impersonation is no sign-in of
 * the user's and is not among them (it ends within its hour).
 */
export async function sessionsOutsideSso(db: Db, organizationId: string): Promise<Prisma.SessionWhereInput> {
  const own = await ownSsoMethods(db, organizationId);
  return { impersonatedBy: null, OR: [{ signInMethod: null }, { signInMethod: { notIn: own } }] };
}

/**
 * An account whose address comes under enforced single sign-on while it is signed in (its
 * email proved or changed onto an enforced domain) loses what did not come through that
 * sign-on: its other sessions and its personal API keys (made while another way in was
 * allowed). Without it the rule would wait for its next sign-in. In the caller's transaction.
 */
export async function endAccessOutsideSso(tx: Db, userId: string): Promise<void> {
  const user = await tx.user.findUnique({ where: { id: userId }, select: { email: true } });
  const organizationId = user && (await enforcingOrganization(tx, user.email));
  if (!organizationId) return;
  await deleteSessions(userId, await sessionsOutsideSso(tx, organizationId), tx);
  await tx.apiKey.deleteMany({ where: { userId, organizationId: null } });
}

/** Runs a step of a sign-in; when the ban rule (session.server.ts) refuses it, the refusal is audited. */
export async function auditingBan<T>(
  userId: string,
  meta: RequestMeta,
  details: object,
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isAppError(error) && error.code === "BANNED_USER") {
      const reason = "BANNED_USER";
      await audit({
        userId,
        category: "auth",
        action: "sign-in",
        status: "failure",
        details: { ...details, reason },
        meta,
      });
    }
    throw error;
  }
}

/**
 * Every way of signing in ends here: a new session and its audit row. A user with two-factor
 * gets a pending sign-in instead (SecondFactorRequired is thrown), unless this is the second
 * step itself, a passkey (already two factors) or a trusted browser. An email an organization
 * requires single sign-on for gets SsoRequired unless this is that sign-on (`sso:<providerId>`);
 * an admin's impersonation makes its session without signing in, so it is not refused.
 */
export async function signInSession(
  userId: string,
  meta: RequestMeta,
  details: { method: string; rememberMe?: boolean; secondFactor?: string },
): Promise<Awaited<ReturnType<typeof createSession>>> {
  const ssoEmail = await emailRequiringSso(userId, details.method);
  if (ssoEmail) {
    const reason = "SSO_REQUIRED";
    await audit({
      userId,
      category: "auth",
      action: "sign-in",
      status: "failure",
      details: { ...details, reason },
      meta,
    });
    throw new SsoRequired(ssoEmail);
  }
  // A banned user is refused by createSession, or by the gate before a second step is due.
  const { created, trustCookie } = await auditingBan(userId, meta, details, async () => {
    const trustCookie =
      details.secondFactor || details.method === "passkey" ? null : await secondFactorGate(userId, meta, details);
    return {
      created: await createSession(userId, meta, {
        rememberMe: details.rememberMe ?? true,
        signInMethod: details.method,
      }),
      trustCookie,
    };
  });
  if (trustCookie) created.setCookies.push(trustCookie);
  await audit({
    userId,
    category: "auth",
    action: "sign-in",
    status: "success",
    targetType: "session",
    targetId: created.session.id,
    details,
    meta,
  });
  return created;
}
