/** Subscriptions through Polar (the suite is in helpers/billing.ts, shared with the other provider). */
import { expect, it } from "vitest";
import { billingSuite } from "./helpers/billing";

billingSuite("polar", ({ app, polar, password, person, submit, startCheckout, pay, subscriptionOf }) => {
  it("an organization pays as its own team customer: another admin's portal is never the buyer's own", async () => {
    const a = await person();
    const b = await person();
    const { data: org } = await a.client.organization.create({ name: "Shared Org", slug: `shared-${Date.now()}` });
    const { addMember } = await import("~/server/organization/organizations.server");
    await addMember(
      { userId: b.id, role: "admin", organizationId: org!.id },
      { ipAddress: null, userAgent: null, locale: "en" },
    );
    // A, the owner, pays for a plan of their own and buys the organization's.
    await pay((await startCheckout(a, "pro")).data!.url);
    await pay((await startCheckout(a, "team", { referenceId: org!.id })).data!.url);
    const own = await subscriptionOf(a.id);
    const shared = await subscriptionOf(org!.id);
    const buyer = (await app().prisma.user.findUniqueOrThrow({ where: { id: a.id } })).polarCustomerId!;
    expect(own.customerId).toBe(buyer);

    /** Customer sessions asked of Polar from now on: [customer id, external member id]. */
    const sessionsAsked = () => {
      const from = polar().calls.length;
      return () =>
        polar()
          .calls.slice(from)
          .filter((call) => call.path === "/v1/customer-sessions/")
          .map((call) => {
            const body = call.body as { customer_id: string; external_member_id?: string };
            return [body.customer_id, body.external_member_id ?? null];
          });
    };

    // B, an admin, asks for another plan for the organization (the portal changes it), and
    // opens its portal from the billing page.
    const asked = sessionsAsked();
    const change = await startCheckout(b, "pro", { referenceId: org!.id });
    expect(change.error).toBeNull();
    const viaUpgrade = polar().portalSession(change.data!.url)!;
    expect(viaUpgrade.customerId).not.toBe(buyer);
    const page = await submit(b, "/billing", { intent: "portal", referenceId: org!.id });
    expect(page.status).toBe(302);
    const viaPage = polar().portalSession(page.headers.get("location")!)!;
    expect(viaPage.customerId).not.toBe(buyer);

    // Both are the organization's own team customer, for B as its member.
    const team = (await app().prisma.organization.findUniqueOrThrow({ where: { id: org!.id } })).polarCustomerId!;
    expect(team).toBeTruthy();
    expect(shared.customerId).toBe(team);
    // (The first is refused: B was no member of the team customer yet; made one, B asks again.)
    expect(asked()).toEqual([
      [team, b.id],
      [team, b.id],
      [team, b.id],
    ]);
    const customer = polar().customer(team)!;
    expect(customer).toMatchObject({ type: "team", externalId: org!.id, email: null, name: "Shared Org" });
    expect(customer.members).toEqual([
      expect.objectContaining({ role: "owner", externalId: a.id, email: a.email }),
      expect.objectContaining({ role: "billing_manager", externalId: b.id, email: b.email }),
    ]);
    expect([viaUpgrade, viaPage]).toEqual([
      { customerId: team, memberId: customer.members[1]!.id },
      { customerId: team, memberId: customer.members[1]!.id },
    ]);
    // The portal shows the organization's plan, not A's own.
    const portal = await (await fetch(change.data!.url)).text();
    expect(portal).toContain("Team (monthly)");
    expect(portal).not.toContain("Pro (monthly)");

    // B's ways to A's own customer all fail, and Polar is never asked for it.
    const refused = sessionsAsked();
    const named = await submit(b, "/billing", { intent: "portal", referenceId: a.id });
    expect([named.status, named.headers.get("location")]).toEqual([302, "/billing"]);
    const checkout = await startCheckout(b, "team", { referenceId: a.id });
    expect(checkout.error).toMatchObject({ status: 403 });
    // Even a subscription of the organization that A's own customer pays (as the organization's
    // subscriptions were paid before it had a customer of its own) opens no portal for B.
    await app().prisma.subscription.update({ where: { id: shared.id }, data: { customerId: buyer } });
    const legacy = await startCheckout(b, "pro", { referenceId: org!.id });
    expect(legacy.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_MANAGE_BILLING" });
    const legacyPage = await submit(b, "/billing", { intent: "portal", referenceId: org!.id });
    expect(legacyPage.headers.get("location")).toBe("/billing");
    expect(refused()).toEqual([]);
    await app().prisma.subscription.update({ where: { id: shared.id }, data: { customerId: team } });

    // A deletes their account: A's own plan ends, the organization's goes on, paid by the
    // organization's customer, and B still manages it.
    expect((await a.client.deleteUser({ password })).error).toBeNull();
    expect(await app().prisma.subscription.findUniqueOrThrow({ where: { id: own.id } })).toMatchObject({
      cancelAtPeriodEnd: true,
    });
    await polar().settled();
    expect(await app().prisma.subscription.findUniqueOrThrow({ where: { id: shared.id } })).toMatchObject({
      customerId: team,
      status: "trialing",
      cancelAtPeriodEnd: false,
    });
    const after = await submit(b, "/billing", { intent: "portal", referenceId: org!.id });
    expect(polar().portalSession(after.headers.get("location")!)).toEqual(viaPage);
  });
});
