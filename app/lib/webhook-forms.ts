import { z } from "zod";

/**
 * The webhook pages' form schemas and the event types, shared by the actions, the services
 * and the browser. The forms check shape only; whether an address may be called and who may
 * do what are the services' (app/server/webhooks).
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

export const createWebhookSchema = z.object({
  intent: z.literal("create-webhook"),
  url: z
    .url({ protocol: /^https?$/, error: "webhooks:form.urlInvalid" })
    .max(WEBHOOK_URL_MAX, { error: "webhooks:form.urlInvalid" }),
  // One checkbox per type: one value, several, or none.
  eventTypes: z
    .array(z.enum(WEBHOOK_EVENT_TYPES, { error: "webhooks:form.eventTypesRequired" }), {
      error: "webhooks:form.eventTypesRequired",
    })
    .min(1, { error: "webhooks:form.eventTypesRequired" }),
});

export const setWebhookEnabledSchema = z.object({
  intent: z.literal("set-enabled"),
  enabled: z.enum(["true", "false"]).transform((value) => value === "true"),
});

export const sendTestSchema = z.object({ intent: z.literal("send-test") });

export const replayDeliverySchema = z.object({
  intent: z.literal("replay"),
  deliveryId: z.string().trim().min(1).max(64),
});

export const deleteWebhookSchema = z.object({ intent: z.literal("delete-webhook") });
