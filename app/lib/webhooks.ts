/**
 * What the webhook pages draw and the services share, without zod: the event types, the
 * address limit and the pages' addresses. A module of its own, so that the modules every
 * page loads (form-limits, organization-paths) carry none of it (decision 0031).
 */

/** What an endpoint can subscribe to: an organization's events, by kind (docs/decisions/0029). */
export const WEBHOOK_EVENT_TYPES = [
  "member.added",
  "member.removed",
  "member.role_changed",
  "invitation.created",
  "invitation.accepted",
  "invitation.rejected",
  "invitation.canceled",
  "team.changed",
  "subscription.changed",
  "sso.changed",
  "scim.changed",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The event "send test event" sends, to one endpoint whatever it subscribed to. */
export const WEBHOOK_TEST_EVENT = "webhook.test";

export const WEBHOOK_URL_MAX = 2048;

/** The section of an organization's webhooks: the list, "new", one endpoint, or its removal. */
export function webhooksPath(slug: string, endpointId?: string, sub?: "remove") {
  const base = `/organizations/${encodeURIComponent(slug)}/webhooks`;
  if (!endpointId) return base;
  return `${base}/${encodeURIComponent(endpointId)}${sub ? `/${sub}` : ""}`;
}
