/**
 * The email domains of an organization's identity providers, and the proof that the
 * organization controls them: a DNS TXT record per domain, resolved with node:dns. Only a
 * verified domain links SSO identities to existing accounts, counts their emails as verified,
 * routes sign-ins ahead of unverified connections and may be enforced (`ssoRequired`): an
 * organization could otherwise name someone else's domain and take over its people's
 * accounts. So a domain verified by one organization cannot be verified by another.
 *
 * The resolver asks the system's DNS servers, or those of DNS_SERVERS (a stand-in in tests).
 */
import { randomBytes } from "node:crypto";
import { Resolver } from "node:dns/promises";
import { z } from "zod";
import { audit } from "~/server/audit.server";
import { deleteSessions, type AuthSession, type RequestMeta } from "~/server/auth/session.server";
import { sessionsOutsideSso } from "~/server/auth/sign-in.server";
import { prisma, type Prisma } from "~/server/db.server";
import { loadEnv } from "~/server/env.server";
import { AppError, fail } from "~/server/errors.server";
import { requireMembership, requirePermission } from "~/server/organization/organizations.server";

/** The product's short name, in the record's name and value (the brand is "Acme Cloud"). */
const BRAND = "acme";

/** The TXT record that proves control of `domain`: `_acme-sso.<domain>` = `acme-domain-verification=<token>`. */
export function domainRecord(domain: string, token: string) {
  return { type: "TXT" as const, name: `_${BRAND}-sso.${domain}`, value: `${BRAND}-domain-verification=${token}` };
}

const DNS_TIMEOUT_MS = 3_000;

/**
 * Makes the provider's domain rows `domains` (lower-case, as domainList gives them): rows of
 * domains that stay keep their token and their verification, rows of removed domains go, and
 * new domains get an unverified row with a fresh random token.
 */
export async function syncDomains(tx: Prisma.TransactionClient, providerRowId: string, domains: string[]) {
  await tx.ssoDomain.deleteMany({ where: { providerId: providerRowId, domain: { notIn: domains } } });
  const kept = new Set(
    (await tx.ssoDomain.findMany({ where: { providerId: providerRowId }, select: { domain: true } })).map(
      (row) => row.domain,
    ),
  );
  for (const domain of domains.filter((name) => !kept.has(name))) {
    await tx.ssoDomain.create({
      data: { providerId: providerRowId, domain, token: randomBytes(18).toString("base64url") },
    });
  }
}

/**
 * Requiring SSO only means something for verified domains: when an organization has none left
 * (a connection or a domain removed), the requirement goes too, so it cannot come back on by
 * itself when a domain is verified later.
 */
export async function releaseRequirementWithoutDomains(tx: Prisma.TransactionClient, organizationId: string) {
  const verified = await tx.ssoDomain.count({
    where: { verifiedAt: { not: null }, provider: { organizationId } },
  });
  if (verified === 0) {
    await tx.organization.updateMany({
      where: { id: organizationId, ssoRequired: true },
      data: { ssoRequired: false },
    });
  }
}

/** Accounts whose sessions one transaction of the sweep below ends: a few hundred statements, well inside a transaction's time. */
const SWEEP_BATCH = 100;

/**
 * What requiring single sign-on does to people already in: the accounts whose email is on
 * `domains` lose every session that did not come through one of the organization's own
 * connections, and every personal API key (made while another way in was allowed). Without
 * it the rule would wait for their next sign-in, and sessions that slide and keys that never
 * expire would carry someone the identity provider has disabled on indefinitely. An admin's
 * impersonation is no sign-in of theirs, so it stays (it ends within the hour anyway).
 *
 * It runs after the requirement is committed, in batches: from then on every other sign-in
 * is refused, so what it reads is all there is to end, and a large organization's sweep
 * never holds one transaction (or SQLite's write lock) for long.
 */
async function sweepAccessOutsideSso(organizationId: string, domains: string[]) {
  if (!domains.length) return { endedSessions: 0, deletedApiKeys: 0 };
  const onDomains = { OR: domains.map((domain) => ({ email: { endsWith: `@${domain}` } })) };
  const outsideSso = await sessionsOutsideSso(prisma, organizationId);
  const holders = await prisma.session.findMany({
    where: { ...outsideSso, user: onDomains },
    select: { userId: true },
    distinct: ["userId"],
  });
  let endedSessions = 0;
  for (let start = 0; start < holders.length; start += SWEEP_BATCH) {
    endedSessions += await prisma.$transaction(async (tx) => {
      let ended = 0;
      for (const { userId } of holders.slice(start, start + SWEEP_BATCH)) {
        ended += await deleteSessions(userId, outsideSso, tx);
      }
      return ended;
    });
  }
  const { count: deletedApiKeys } = await prisma.apiKey.deleteMany({
    where: { organizationId: null, user: onDomains },
  });
  return { endedSessions, deletedApiKeys };
}

// ---- verification ----

export const verifyDomainInput = z.object({
  providerId: z.string().min(1).max(200),
  /** The product's addition: one domain of the provider; without it, every unverified one (as better-auth does). */
  domain: z.string().trim().toLowerCase().min(1).max(253).optional(),
});

/** A domain verified by a provider of another organization: taken. */
function verifiedElsewhere(db: Prisma.TransactionClient | typeof prisma, domain: string, organizationId: string) {
  return db.ssoDomain.findFirst({
    where: { domain, verifiedAt: { not: null }, provider: { organizationId: { not: organizationId } } },
    select: { id: true },
  });
}

/** The TXT values at `name`; null when DNS could not be asked (a timeout, a server failure). */
async function txtValues(name: string): Promise<string[] | null> {
  const resolver = new Resolver({ timeout: DNS_TIMEOUT_MS, tries: 2 });
  const servers = loadEnv().DNS_SERVERS;
  if (servers.length) resolver.setServers(servers);
  try {
    // A long TXT value arrives in 255-byte pieces: joined, they are the value.
    return (await resolver.resolveTxt(name)).map((pieces) => pieces.join("").trim());
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOTFOUND" || code === "ENODATA" ? [] : null;
  }
}

/**
 * Resolves the TXT record of the provider's domain `domain` (or of each unverified domain,
 * all of which must then pass) and marks it verified. Refusals, each audited: a domain
 * already verified (409 DOMAIN_VERIFIED), verified by another organization (409), or whose
 * record is missing or wrong (502 DOMAIN_VERIFICATION_FAILED, better-auth's answer).
 */
export async function verifyDomain(auth: AuthSession, input: z.infer<typeof verifyDomainInput>, meta: RequestMeta) {
  const provider = await prisma.ssoProvider.findUnique({
    where: { providerId: input.providerId },
    include: { domains: { orderBy: { domain: "asc" } } },
  });
  if (!provider) fail("PROVIDER_NOT_FOUND");
  const member = await requireMembership(auth, provider.organizationId);
  requirePermission(member, "sso", ["manage"], "YOU_ARE_NOT_ALLOWED_TO_MANAGE_SSO");

  const targets = input.domain ? provider.domains.filter((row) => row.domain === input.domain) : provider.domains;
  if (!targets.length) fail("INVALID_DOMAIN", `${input.domain} is not a domain of this provider`);
  const pending = targets.filter((row) => !row.verifiedAt);
  if (!pending.length) fail("DOMAIN_VERIFIED");

  const refuse = async (row: (typeof pending)[number], reason: string, error: AppError): Promise<never> => {
    await audit({
      userId: auth.user.id,
      category: "sso",
      action: "verify-domain",
      status: "failure",
      targetType: "sso-domain",
      targetId: row.id,
      organizationId: provider.organizationId,
      details: { providerId: provider.providerId, domain: row.domain, reason },
      meta,
    });
    throw error;
  };
  const taken = () => new AppError("DOMAIN_VERIFIED_BY_ANOTHER_ORGANIZATION");
  for (const row of pending) {
    if (await verifiedElsewhere(prisma, row.domain, provider.organizationId)) {
      await refuse(row, "verified-by-another-organization", taken());
    }
    const record = domainRecord(row.domain, row.token);
    const values = await txtValues(record.name);
    if (!values?.includes(record.value)) {
      const failed = new AppError(
        "DOMAIN_VERIFICATION_FAILED",
        `Unable to verify domain ownership for ${row.domain}. Try again later`,
      );
      await refuse(
        row,
        values === null ? "dns-unavailable" : values.length ? "record-mismatch" : "record-missing",
        failed,
      );
    }
  }

  // Checked again where the rows change: two organizations verifying one domain at once.
  const clash = await prisma.$transaction(async (tx) => {
    for (const row of pending) {
      if (await verifiedElsewhere(tx, row.domain, provider.organizationId)) return row;
    }
    await tx.ssoDomain.updateMany({
      where: { id: { in: pending.map((row) => row.id) } },
      data: { verifiedAt: new Date() },
    });
    return null;
  });
  if (clash) await refuse(clash, "verified-by-another-organization", taken());
  // A domain verified while the organization requires single sign-on is required from now on.
  const { ssoRequired } = await prisma.organization.findUniqueOrThrow({
    where: { id: provider.organizationId },
    select: { ssoRequired: true },
  });
  const ended = ssoRequired
    ? await sweepAccessOutsideSso(
        provider.organizationId,
        pending.map((row) => row.domain),
      )
    : {};
  for (const row of pending) {
    await audit({
      userId: auth.user.id,
      category: "sso",
      action: "verify-domain",
      status: "success",
      targetType: "sso-domain",
      targetId: row.id,
      organizationId: provider.organizationId,
      details: { providerId: provider.providerId, domain: row.domain, ...ended },
      meta,
    });
  }
  return { verified: pending.map((row) => row.domain) };
}

// ---- requiring single sign-on ----

export const setSsoRequiredInput = z.object({
  organizationId: z.string().min(1).max(200),
  required: z.boolean(),
});

/**
 * Whether members with an email in one of the organization's verified domains must sign in
 * through its identity provider. Turning it on needs a verified domain: it would mean nothing
 * (and surprise later) without one.
 */
export async function setSsoRequired(auth: AuthSession, input: z.infer<typeof setSsoRequiredInput>, meta: RequestMeta) {
  const member = await requireMembership(auth, input.organizationId);
  requirePermission(member, "sso", ["manage"], "YOU_ARE_NOT_ALLOWED_TO_MANAGE_SSO");
  const { organizationId } = member;
  if (input.required) {
    const verified = await prisma.ssoDomain.count({
      where: { verifiedAt: { not: null }, provider: { organizationId } },
    });
    if (!verified) fail("SSO_REQUIRES_VERIFIED_DOMAIN");
  }
  const { count: changed } = await prisma.organization.updateMany({
    where: { id: organizationId, ssoRequired: !input.required },
    data: { ssoRequired: input.required },
  });
  // Only turning it on sweeps: sending the form again must not end what single sign-on made since.
  let ended = {};
  if (changed && input.required) {
    const domains = await prisma.ssoDomain.findMany({
      where: { verifiedAt: { not: null }, provider: { organizationId } },
      select: { domain: true },
    });
    ended = await sweepAccessOutsideSso(
      organizationId,
      domains.map((row) => row.domain),
    );
  }
  await audit({
    userId: auth.user.id,
    category: "sso",
    action: "require-sso",
    status: "success",
    targetType: "organization",
    targetId: organizationId,
    organizationId,
    details: { required: input.required, ...ended },
    meta,
  });
  return { organizationId, ssoRequired: input.required };
}
