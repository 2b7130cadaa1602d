/**
 * An organization's webhook endpoints, for its owners and admins (`webhook: manage`): register
 * one (its signing secret is shown once, then kept encrypted), list them with their
 * deliveries, turn one off or on, remove it, send it a test event, replay a delivery. Each
 * change is audited in the organization's log. An endpoint of another organization is "not
 * found", whoever asks, so ids cannot be probed.
 */
import { randomBytes } from "node:crypto";
import { isIP } from "node:net";
import { WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT, type WebhookEventType } from "~/lib/webhooks";
import { audit } from "~/server/audit.server";
import type { AuthSession, RequestMeta } from "~/server/auth/session.server";
import { encryptSecret } from "~/server/crypto.server";
import { newId, prisma } from "~/server/db.server";
import { loadEnv } from "~/server/env.server";
import { fail } from "~/server/errors.server";
import {
  callerOf,
  membershipOf,
  requireMembership,
  requirePermission,
} from "~/server/organization/organizations.server";
import { checkOutboundUrl, isPublicAddress, OutboundFetchError } from "~/server/outbound-fetch.server";
import { enqueueDelivery, privateOriginAllowed } from "./delivery.server";

/** How many deliveries an endpoint's page lists (the newest). */
export const DELIVERIES_SHOWN = 50;
/** How many endpoints one organization may have. */
export const MAX_ENDPOINTS = 20;

const endpointFields = {
  id: true,
  organizationId: true,
  url: true,
  eventTypes: true,
  enabled: true,
  disabledReason: true,
  disabledAt: true,
  createdAt: true,
} as const;

const typesOf = (stored: string) => stored.split(",").filter(Boolean) as WebhookEventType[];

/** The membership that may manage the organization's webhooks, or the refusal. */
async function managerOf(auth: AuthSession, organizationId: string) {
  const member = await requireMembership(auth, organizationId);
  requirePermission(member, "webhook", ["manage"], "YOU_ARE_NOT_ALLOWED_TO_MANAGE_WEBHOOKS");
  return member;
}

/** The endpoint `id` for a caller who manages its organization's webhooks; WEBHOOK_NOT_FOUND to anyone else. */
async function managedEndpoint(auth: AuthSession, id: string) {
  const row = await prisma.webhookEndpoint.findUnique({ where: { id }, select: endpointFields });
  const member = row ? await membershipOf(auth.user.id, row.organizationId) : null;
  if (!row || !member) fail("WEBHOOK_NOT_FOUND");
  requirePermission(await callerOf(member), "webhook", ["manage"], "YOU_ARE_NOT_ALLOWED_TO_MANAGE_WEBHOOKS");
  return row;
}

/**
 * An address deliveries may go to: https (or a WEBHOOK_PRIVATE_ORIGINS origin) and not a
 * private literal address. A host name is checked at each delivery, after resolving it.
 */
function checkWebhookUrl(raw: string): string {
  let url: URL;
  try {
    url = checkOutboundUrl(raw, privateOriginAllowed);
  } catch (error) {
    if (error instanceof OutboundFetchError) fail("INVALID_WEBHOOK_URL");
    throw error;
  }
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  const local = literal === "localhost" || (isIP(literal) !== 0 && !isPublicAddress(literal));
  if (local && !privateOriginAllowed(url)) fail("INVALID_WEBHOOK_URL");
  return url.toString();
}

/** The organization's endpoints, newest first. */
export async function listEndpoints(auth: AuthSession, organizationId: string) {
  await managerOf(auth, organizationId);
  const rows = await prisma.webhookEndpoint.findMany({
    where: { organizationId },
    select: endpointFields,
    orderBy: { createdAt: "desc" },
  });
  return rows.map((row) => ({ ...row, eventTypes: typesOf(row.eventTypes) }));
}

/** The endpoint `id` and its latest deliveries. */
export async function getEndpoint(auth: AuthSession, id: string) {
  const row = await managedEndpoint(auth, id);
  const deliveries = await prisma.webhookDelivery.findMany({
    where: { endpointId: id },
    orderBy: { createdAt: "desc" },
    take: DELIVERIES_SHOWN,
    select: {
      id: true,
      eventId: true,
      eventType: true,
      status: true,
      attempts: true,
      lastResponseStatus: true,
      lastResponseBody: true,
      lastAttemptAt: true,
      nextAttemptAt: true,
      createdAt: true,
    },
  });
  return { ...row, eventTypes: typesOf(row.eventTypes), deliveries };
}

/**
 * Registers an endpoint and returns it with its signing secret (`whsec_` and 24 random bytes in
 * base64, the Standard Webhooks format), the only time the secret is shown. `locale` is the
 * language of the admins' email should the endpoint be turned off.
 */
export async function createEndpoint(
  auth: AuthSession,
  input: { organizationId: string; url: string; eventTypes: WebhookEventType[]; locale: string },
  meta: RequestMeta,
) {
  await managerOf(auth, input.organizationId);
  const url = checkWebhookUrl(input.url);
  const eventTypes = WEBHOOK_EVENT_TYPES.filter((type) => input.eventTypes.includes(type));
  if (!eventTypes.length) fail("WEBHOOK_EVENT_TYPES_REQUIRED");
  if ((await prisma.webhookEndpoint.count({ where: { organizationId: input.organizationId } })) >= MAX_ENDPOINTS) {
    fail("TOO_MANY_WEBHOOKS");
  }
  const secret = `whsec_${randomBytes(24).toString("base64")}`;
  const endpoint = await prisma.webhookEndpoint.create({
    data: {
      organizationId: input.organizationId,
      url,
      eventTypes: eventTypes.join(","),
      secret: encryptSecret(loadEnv().AUTH_SECRET, secret),
      createdBy: auth.user.id,
      locale: input.locale,
    },
    select: endpointFields,
  });
  await audit({
    userId: auth.user.id,
    organizationId: input.organizationId,
    category: "webhook",
    action: "create-webhook",
    status: "success",
    targetType: "webhook",
    targetId: endpoint.id,
    details: { url, eventTypes },
    meta,
  });
  return { endpoint: { ...endpoint, eventTypes }, secret };
}

/** Turns the endpoint off (no deliveries, retries end) or on again. */
export async function setEndpointEnabled(auth: AuthSession, id: string, enabled: boolean, meta: RequestMeta) {
  const row = await managedEndpoint(auth, id);
  await prisma.webhookEndpoint.update({
    where: { id },
    data: enabled
      ? { enabled: true, disabledReason: null, disabledAt: null }
      : { enabled: false, disabledReason: "manual", disabledAt: new Date() },
  });
  await audit({
    userId: auth.user.id,
    organizationId: row.organizationId,
    category: "webhook",
    action: enabled ? "enable-webhook" : "disable-webhook",
    status: "success",
    targetType: "webhook",
    targetId: id,
    details: { url: row.url },
    meta,
  });
}

/** Removes the endpoint and its deliveries; retries still queued find nothing and end. */
export async function deleteEndpoint(auth: AuthSession, id: string, meta: RequestMeta) {
  const row = await managedEndpoint(auth, id);
  await prisma.webhookEndpoint.delete({ where: { id } });
  await audit({
    userId: auth.user.id,
    organizationId: row.organizationId,
    category: "webhook",
    action: "delete-webhook",
    status: "success",
    targetType: "webhook",
    targetId: id,
    details: { url: row.url },
    meta,
  });
}

/** Sends the endpoint a `webhook.test` event (to this endpoint only, whatever it subscribed to). */
export async function sendTestEvent(auth: AuthSession, id: string, meta: RequestMeta) {
  const row = await managedEndpoint(auth, id);
  if (!row.enabled) fail("WEBHOOK_DISABLED");
  const eventId = `msg_${newId()}`;
  const payload = JSON.stringify({
    type: WEBHOOK_TEST_EVENT,
    timestamp: new Date().toISOString(),
    data: { organizationId: row.organizationId, endpointId: id },
  });
  const delivery = await prisma.webhookDelivery.create({
    data: { endpointId: id, eventId, eventType: WEBHOOK_TEST_EVENT, payload },
  });
  await enqueueDelivery(delivery.id);
  await audit({
    userId: auth.user.id,
    organizationId: row.organizationId,
    category: "webhook",
    action: "test-webhook",
    status: "success",
    targetType: "webhook",
    targetId: id,
    details: { url: row.url, eventId },
    meta,
  });
  return delivery;
}

/**
 * Sends a delivery's event again, as a new delivery with a fresh retry schedule and the same
 * message id and body, so a receiver that already has it can tell (Standard Webhooks' dedupe).
 */
export async function replayDelivery(auth: AuthSession, endpointId: string, deliveryId: string, meta: RequestMeta) {
  const row = await managedEndpoint(auth, endpointId);
  const original = await prisma.webhookDelivery.findFirst({ where: { id: deliveryId, endpointId } });
  if (!original) fail("WEBHOOK_DELIVERY_NOT_FOUND");
  if (!row.enabled) fail("WEBHOOK_DISABLED");
  const delivery = await prisma.webhookDelivery.create({
    data: { endpointId, eventId: original.eventId, eventType: original.eventType, payload: original.payload },
  });
  await enqueueDelivery(delivery.id);
  await audit({
    userId: auth.user.id,
    organizationId: row.organizationId,
    category: "webhook",
    action: "replay-webhook-delivery",
    status: "success",
    targetType: "webhook",
    targetId: endpointId,
    details: { url: row.url, eventId: original.eventId, deliveryId },
    meta,
  });
  return delivery;
}
