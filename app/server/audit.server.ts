/**
 * The one way to record an audit event. Every sign-in (success and failure), sign-up,
 * password change/reset, email change, session revocation and account deletion calls it,
 * with the request's IP address and user agent. A row written while an admin impersonates
 * the user names the admin (`impersonatedBy`, from the request's meta): it is the admin's
 * doing, not the user's.
 */
import { Prisma, prisma } from "~/server/db.server";
import { logger } from "~/server/log.server";
import { outcomeOf, signIns, signUps } from "~/server/metrics.server";

export type AuditCategory =
  "auth" | "email" | "organization" | "payment" | "admin" | "security" | "sso" | "scim" | "api-key" | "webhook";

export interface AuditEvent {
  userId?: string | null;
  category: AuditCategory;
  /** e.g. "sign-in", "sign-up", "change-password", "revoke-session", "delete-user" */
  action: string;
  status: "success" | "failure";
  targetType?: string | null;
  targetId?: string | null;
  /** Event-specific facts (never secrets); stored as JSON. */
  details?: Record<string, unknown> | null;
  /**
   * The organization the event concerns, for its own audit log: every organization,
   * invitation, team, SSO and SCIM event, and a subscription of an organization.
   */
  organizationId?: string | null;
  meta: { ipAddress: string | null; userAgent: string | null; impersonatedBy?: string | null };
}

function write(event: AuditEvent) {
  return prisma.auditLog.create({
    data: {
      userId: event.userId ?? null,
      category: event.category,
      action: event.action,
      status: event.status,
      targetType: event.targetType ?? null,
      targetId: event.targetId ?? null,
      details: event.details ? JSON.stringify(event.details) : null,
      organizationId: event.organizationId ?? null,
      ipAddress: event.meta.ipAddress,
      userAgent: event.meta.userAgent,
      // The admin's own rows (e.g. stopping the impersonation) are simply theirs.
      impersonatedBy: event.meta.impersonatedBy === event.userId ? null : (event.meta.impersonatedBy ?? null),
    },
  });
}

type OrganizationEventListener = (event: AuditEvent & { organizationId: string }) => Promise<void>;
/** By name: a development server that reloads a listener's module replaces it instead of adding a second. */
const listeners = new Map<string, OrganizationEventListener>();

/**
 * Calls `listener` after each successful event of an organization is written. Every
 * organization event is audited (the audit-labels test enforces it), so this is the one place
 * they are published: outgoing webhooks (a higher layer) listen here and no service can
 * forget to send one.
 */
export function onOrganizationEvent(name: string, listener: OrganizationEventListener): void {
  listeners.set(name, listener);
}

/**
 * Sign-ins and sign-ups by outcome, counted here because every one of them, succeeded or
 * failed, is audited. A single sign-on's own success row is followed by the session's
 * (signInSession), which is the one counted.
 */
function count(event: AuditEvent): void {
  const counter = event.action === "sign-in" ? signIns : event.action === "sign-up" ? signUps : null;
  if (!counter || (event.category === "sso" && event.status === "success")) return;
  counter.inc({ outcome: event.status === "success" ? "success" : outcomeOf(event.details?.reason) });
}

async function publish(event: AuditEvent) {
  const { organizationId } = event;
  if (!organizationId || event.status !== "success") return;
  for (const listener of listeners.values()) {
    try {
      await listener({ ...event, organizationId });
    } catch (error) {
      logger().error({ err: error }, `Publishing ${event.category}/${event.action} failed`);
    }
  }
}

/**
 * Writes one row, then publishes an organization's event (see onOrganizationEvent). An event about a user who no longer exists (e.g. written just after the
 * account was deleted) keeps the id in `details`, since the foreign key cannot hold it. Any
 * other failure is logged, not thrown: losing an audit row must not turn a successful
 * sign-in into an error page.
 */
export async function audit(event: AuditEvent): Promise<void> {
  count(event);
  try {
    await write(event);
  } catch (error) {
    const missingUser = error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2003";
    try {
      if (!missingUser || !event.userId) throw error;
      await write({ ...event, userId: null, details: { ...event.details, userId: event.userId } });
    } catch (final) {
      logger().error({ err: final }, `Audit log write failed (${event.category}/${event.action})`);
    }
  }
  await publish(event);
}
