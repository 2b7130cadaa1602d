import { z } from "zod";
import { WEBHOOK_EVENT_TYPES, WEBHOOK_URL_MAX } from "./webhooks";

/**
 * The webhook pages' form schemas, shared by the actions and the browser (on a form's first
 * use). The forms check shape only; whether an address may be called and who may
 * do what are the services' (app/server/webhooks).
 */

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
