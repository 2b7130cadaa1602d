/**
 * A new session starts in the organization its user last made active, or in their only one,
 * while they are still a member: after a password sign-in, a second session elsewhere, and
 * turning on two-factor (which replaces the session).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTestClient, type TestClient } from "./helpers/auth-client";
import { startTestApp, type TestApp } from "./helpers/app";
import { createOrganization, createUser, PASSWORD, signInWithPassword } from "./helpers/factories";

const SECRET = "active-organization-secret-0123456789abcdefghij";
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ secret: SECRET });
}, 60_000);
afterAll(() => app?.stop());

const signIn = (email: string) => signInWithPassword(makeTestClient(app.base), email);

async function activeOrganizationId(c: TestClient) {
  const { data } = await c.client.getSession({ query: { disableCookieCache: true } });
  return (data?.session as { activeOrganizationId?: string | null } | undefined)?.activeOrganizationId ?? null;
}

async function memberOf(count: number) {
  const user = await createUser();
  const organizations = [];
  for (let i = 0; i < count; i++) {
    organizations.push(await createOrganization({ members: [{ userId: user.id, role: "owner" }] }));
  }
  return { user, organizations };
}

describe("the active organization of a new session", () => {
  it("is the user's only organization", async () => {
    const { user, organizations } = await memberOf(1);
    expect(await activeOrganizationId(await signIn(user.email))).toBe(organizations[0]!.id);
  });

  it("is none for a user of several organizations who never chose one, and none without any", async () => {
    const { user } = await memberOf(2);
    expect(await activeOrganizationId(await signIn(user.email))).toBeNull();
    const { user: alone } = await memberOf(0);
    expect(await activeOrganizationId(await signIn(alone.email))).toBeNull();
  });

  it("is the one the user last made active, in every new session", async () => {
    const { user, organizations } = await memberOf(3);
    const [first, second] = organizations;
    const laptop = await signIn(user.email);
    await laptop.client.organization.setActive({ organizationId: second!.id });
    expect(await activeOrganizationId(await signIn(user.email))).toBe(second!.id);
    await laptop.client.organization.setActive({ organizationId: first!.id });
    await laptop.client.signOut();
    expect(await activeOrganizationId(await signIn(user.email))).toBe(first!.id);
  });

  it("is never one the user has left", async () => {
    const { user, organizations } = await memberOf(2);
    const [kept, left] = organizations;
    const c = await signIn(user.email);
    await c.client.organization.setActive({ organizationId: left!.id });
    await app.prisma.member.deleteMany({ where: { userId: user.id, organizationId: left!.id } });
    // Only one organization is left: the new session starts there.
    expect(await activeOrganizationId(await signIn(user.email))).toBe(kept!.id);
  });

  it("is kept when turning on two-factor replaces the session", async () => {
    const { user, organizations } = await memberOf(2);
    const c = await signIn(user.email);
    await c.client.organization.setActive({ organizationId: organizations[1]!.id });
    const enabled = await c.client.twoFactor.enable({ password: PASSWORD, method: "otp" } as never);
    expect(enabled.error).toBeNull();
    expect(await activeOrganizationId(c)).toBe(organizations[1]!.id);
  });
});
