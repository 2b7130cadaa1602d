/**
 * How an organization's events reach its webhook endpoints (docs/decisions/0029).
 *
 * 1. Every organization event is audited; `startWebhooks` listens there
 *    (`onOrganizationEvent`), maps the audit action to a webhook event type, and, when an
 *    enabled endpoint of the organization subscribed to it, enqueues one `webhook-event` job.
 * 2. That job creates one delivery per subscribed, enabled endpoint and enqueues a
 *    `webhook-delivery` job for each.
 * 3. A delivery is signed by the Standard Webhooks scheme (webhook-id, webhook-timestamp,
 *    webhook-signature) and POSTed through the SSRF-safe outbound fetch (https, public
 *    addresses checked after DNS resolution) with a 10 s deadline; the first 2 KB of the answer
 *    are kept. Anything but a 2xx is a failure the queue retries with exponential backoff
 *    (WEBHOOK_RETRY_*: about three days). When the last retry fails too, the endpoint is turned
 *    off and the organization's owners and admins get an email.
 */
import { Webhook } from "standardwebhooks";
import { defaultLocale, isLocale, localizePath } from "~/i18n/config";
import { webhooksPath, type WebhookEventType } from "~/lib/webhooks";
import { audit, onOrganizationEvent, type AuditCategory, type AuditEvent } from "~/server/audit.server";
import { decryptSecret } from "~/server/crypto.server";
import { newId, prisma } from "~/server/db.server";
import { loadEnv } from "~/server/env.server";
import { logger } from "~/server/log.server";
import { webhookDeliveries } from "~/server/metrics.server";
import { defineJob, enqueue, retryDelaySeconds, type JobContext, type RetryPolicy } from "~/server/jobs/queue.server";
import { sendMail } from "~/server/mail/index.server";
import { roleTableOf } from "~/server/organization/organizations.server";
import { can } from "~/server/organization/permissions.server";
import { outboundFetch, OutboundFetchError } from "~/server/outbound-fetch.server";

export const DELIVERY_TIMEOUT_MS = 10_000;
/** How much of a receiver's answer is kept with the delivery. */
export const RESPONSE_BODY_MAX = 2048;

const EVENT_JOB = "webhook-event";
const DELIVERY_JOB = "webhook-delivery";

/** Which audited actions are which webhook events; the others are not sent. */
const EVENTS_OF_ACTION: Record<string, WebhookEventType | WebhookEventType[]> = {
  "add-member": "member.added",
  "scim-create-user": "member.added",
  "remove-member": "member.removed",
  "leave-organization": "member.removed",
  "scim-delete-user": "member.removed",
  "update-member-role": "member.role_changed",
  "scim-set-role": "member.role_changed",
  "invite-member": "invitation.created",
  // Accepting makes the invitee a member.
  "accept-invitation": ["invitation.accepted", "member.added"],
  "reject-invitation": "invitation.rejected",
  "cancel-invitation": "invitation.canceled",
  "create-team": "team.changed",
  "update-team": "team.changed",
  "remove-team": "team.changed",
  "add-team-member": "team.changed",
  "remove-team-member": "team.changed",
  webhook: "subscription.changed",
  "cancel-subscription": "subscription.changed",
  "restore-subscription": "subscription.changed",
  "register-provider": "sso.changed",
  "update-provider": "sso.changed",
  "delete-provider": "sso.changed",
  "verify-domain": "sso.changed",
  "require-sso": "sso.changed",
  "generate-scim-token": "scim.changed",
  "revoke-scim-token": "scim.changed",
  "scim-create-group": "scim.changed",
  "scim-update-group": "scim.changed",
  "scim-delete-group": "scim.changed",
  "scim-unlink-user": "scim.changed",
};

/** The categories whose actions above are meant: "webhook" is also an action name of other kinds. */
const EVENT_CATEGORIES = new Set<AuditCategory>(["organization", "payment", "sso", "scim"]);

/** The webhook event types of an audited action (none: it is not sent). */
export function eventTypesOf(category: AuditCategory, action: string): WebhookEventType[] {
  if (!EVENT_CATEGORIES.has(category) || (action === "webhook" && category !== "payment")) return [];
  return [EVENTS_OF_ACTION[action] ?? []].flat();
}

/** Origins that may be plain http and private (WEBHOOK_PRIVATE_ORIGINS): tests, an internal receiver. */
export const privateOriginAllowed = (url: URL) => loadEnv().WEBHOOK_PRIVATE_ORIGINS.includes(url.origin);

const retryPolicy = (): RetryPolicy => {
  const env = loadEnv();
  return {
    limit: env.WEBHOOK_RETRY_LIMIT,
    delaySeconds: env.WEBHOOK_RETRY_DELAY_SECONDS,
    backoff: env.WEBHOOK_RETRY_BACKOFF,
  };
};

interface EventJob {
  organizationId: string;
  eventId: string;
  type: WebhookEventType;
  /** The JSON body every endpoint gets, signed per endpoint. */
  payload: string;
}

const subscribes = (eventTypes: string, type: string) => eventTypes.split(",").includes(type);

defineJob<EventJob>(
  EVENT_JOB,
  async ({ organizationId, eventId, type, payload }) => {
    const endpoints = await prisma.webhookEndpoint.findMany({
      where: { organizationId, enabled: true },
      select: { id: true, eventTypes: true },
    });
    for (const endpoint of endpoints.filter((row) => subscribes(row.eventTypes, type))) {
      // A retried fan-out does not make a second delivery of the same event.
      const existing = await prisma.webhookDelivery.findFirst({ where: { endpointId: endpoint.id, eventId } });
      const delivery =
        existing ??
        (await prisma.webhookDelivery.create({ data: { endpointId: endpoint.id, eventId, eventType: type, payload } }));
      if (!existing) await enqueueDelivery(delivery.id);
    }
  },
  { retry: () => ({ limit: 3, delaySeconds: 5, backoff: true }) },
);

/** Queues the delivery `deliveryId` for its first attempt. */
export async function enqueueDelivery(deliveryId: string): Promise<void> {
  await enqueue(DELIVERY_JOB, { deliveryId });
}

/** One attempt: the answer's status and its first bytes, or why there was none. */
async function post(url: string, secret: string, eventId: string, payload: string) {
  const timestamp = new Date();
  const signature = new Webhook(secret).sign(eventId, timestamp, payload);
  try {
    const response = await outboundFetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "webhook-id": eventId,
        "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
        "webhook-signature": signature,
      },
      body: payload,
      timeoutMs: DELIVERY_TIMEOUT_MS,
      maxBytes: RESPONSE_BODY_MAX,
      overflow: "truncate",
      exempt: privateOriginAllowed,
      userAgent: "webhooks",
    });
    return { status: response.status, body: await response.text() };
  } catch (error) {
    const reason = error instanceof OutboundFetchError ? error.reason : "unreachable";
    return { status: null, body: `${reason}: ${(error as Error).message}`.slice(0, RESPONSE_BODY_MAX) };
  }
}

class DeliveryFailed extends Error {}

defineJob<{ deliveryId: string }>(
  DELIVERY_JOB,
  async ({ deliveryId }, { attempt, lastAttempt }: JobContext) => {
    const delivery = await prisma.webhookDelivery.findUnique({
      where: { id: deliveryId },
      include: { endpoint: { select: { id: true, url: true, secret: true, enabled: true } } },
    });
    // Removed since, or turned off: nothing more to send.
    if (!delivery || delivery.status !== "pending") return;
    if (!delivery.endpoint.enabled) {
      await prisma.webhookDelivery.update({
        where: { id: deliveryId },
        data: { status: "failed", nextAttemptAt: null },
      });
      return;
    }
    const secret = decryptSecret(loadEnv().AUTH_SECRET, delivery.endpoint.secret);
    const answer = await post(delivery.endpoint.url, secret, delivery.eventId, delivery.payload);
    const succeeded = answer.status !== null && answer.status >= 200 && answer.status < 300;
    webhookDeliveries.inc({ outcome: succeeded ? "success" : lastAttempt ? "exhausted" : "retry" });
    const now = new Date();
    await prisma.webhookDelivery.update({
      where: { id: deliveryId },
      data: {
        status: succeeded ? "succeeded" : lastAttempt ? "failed" : "pending",
        attempts: attempt,
        lastResponseStatus: answer.status,
        lastResponseBody: answer.body,
        lastAttemptAt: now,
        nextAttemptAt:
          succeeded || lastAttempt ? null : new Date(now.getTime() + retryDelaySeconds(retryPolicy(), attempt) * 1000),
      },
    });
    if (succeeded) return;
    if (lastAttempt) return disableFailing(delivery.endpoint.id);
    // The queue retries it under the policy.
    throw new DeliveryFailed(`Delivery ${deliveryId} failed (${answer.status ?? answer.body})`);
  },
  { retry: retryPolicy, concurrency: 4 },
);

/** Turns off an endpoint whose delivery failed every retry, and tells the organization's owners and admins. */
async function disableFailing(endpointId: string) {
  const { count } = await prisma.webhookEndpoint.updateMany({
    where: { id: endpointId, enabled: true },
    data: { enabled: false, disabledReason: "failing", disabledAt: new Date() },
  });
  // Another delivery's last failure got there first: one email is enough.
  if (!count) return;
  const endpoint = await prisma.webhookEndpoint.findUniqueOrThrow({
    where: { id: endpointId },
    include: {
      organization: {
        select: {
          id: true,
          name: true,
          slug: true,
          members: { select: { role: true, user: { select: { email: true, name: true } } } },
        },
      },
    },
  });
  const { organization } = endpoint;
  await audit({
    userId: null,
    organizationId: organization.id,
    category: "webhook",
    action: "webhook-disabled",
    status: "success",
    targetType: "webhook",
    targetId: endpointId,
    details: { url: endpoint.url, reason: "failing" },
    meta: { ipAddress: null, userAgent: null },
  });
  const locale = isLocale(endpoint.locale) ? endpoint.locale : defaultLocale;
  const link = `${loadEnv().BASE_URL}${localizePath(webhooksPath(organization.slug, endpointId), locale)}`;
  const roleTable = await roleTableOf(organization.id);
  for (const member of organization.members.filter((row) =>
    can({ role: row.role, roleTable }, "webhook", ["manage"]),
  )) {
    await sendMail({
      to: member.user.email,
      template: "webhook-disabled",
      locale,
      data: { name: member.user.name, organizationName: organization.name, endpointUrl: endpoint.url, url: link },
    }).catch((error: Error) =>
      logger().error(`Queueing the webhook-disabled email to a member failed: ${error.message}`),
    );
  }
}

/**
 * Publishes the organization's events to its webhooks (once per process, at start). The audit
 * write is the one place events come from; see the top of this file.
 */
export function startWebhooks(): void {
  onOrganizationEvent("webhooks", publishEvent);
}

async function publishEvent(event: AuditEvent & { organizationId: string }) {
  const types = eventTypesOf(event.category, event.action);
  if (!types.length) return;
  const { organizationId } = event;
  const endpoints = await prisma.webhookEndpoint.findMany({
    where: { organizationId, enabled: true },
    select: { eventTypes: true },
  });
  for (const type of types.filter((candidate) => endpoints.some((row) => subscribes(row.eventTypes, candidate)))) {
    const eventId = `msg_${newId()}`;
    const payload = JSON.stringify({
      type,
      timestamp: new Date().toISOString(),
      data: {
        organizationId,
        action: event.action,
        actorId: event.userId ?? null,
        targetType: event.targetType ?? null,
        targetId: event.targetId ?? null,
        details: event.details ?? {},
      },
    });
    await enqueue(EVENT_JOB, { organizationId, eventId, type, payload } satisfies EventJob);
  }
}
