/**
 * The one way to record an audit event. Every sign-in (success and failure), sign-up,
 * password change/reset, email change, session revocation and account deletion calls it,
 * with the request's IP address and user agent. A row written while an admin impersonates
 * the user names the admin (`impersonatedBy`, from the request's meta): it is the admin's
 * doing, not the user's.
 */
import { Prisma, prisma } from "~/server/db.server";
import { logger } from "~/server/log.server";

export type AuditCategory =
  "auth" | "email" | "organization" | "payment" | "admin" | "security" | "sso" | "scim" | "api-key";

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

/**
 * Writes one row. An event about a user who no longer exists (e.g. written just after the
 * account was deleted) keeps the id in `details`, since the foreign key cannot hold it. Any
 * other failure is logged, not thrown: losing an audit row must not turn a successful
 * sign-in into an error page.
 */
export async function audit(event: AuditEvent): Promise<void> {
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
}
