import type { Route } from "./+types/audit-log-csv";
import { searchParamsOf } from "~/lib/reports";
import { organizationAuditLogFilter } from "~/server/report-queries.server";
import { requireAuthSession } from "~/server/auth/guards.server";
import { notFound } from "~/server/i18n.server";
import { organizationAuditLogCsv } from "~/server/organization/audit-log.server";
import { organizationOfPage } from "~/server/organization/pages.server";
import { can } from "~/server/organization/permissions.server";

/**
 * The organization's audit log under the page's filter, as a CSV download. A resource route:
 * it answers on its own, so it checks the caller itself, as the page does (a 404 to outsiders
 * and to members whose role may not read the log).
 */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  const auth = requireAuthSession(context);
  const { organization, caller } = await organizationOfPage(url, auth, params.slug);
  if (!can(caller, "auditLog", ["read"])) notFound(url.pathname);
  const filter = organizationAuditLogFilter.parse(searchParamsOf(url));
  const stamp = new Date().toISOString().slice(0, 19).replace(/[-:]/g, "").replace("T", "-");
  return new Response(await organizationAuditLogCsv(auth, organization.id, filter), {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="audit-log-${organization.slug}-${stamp}.csv"`,
      // Personal data (addresses, IPs): never kept by a shared cache or the browser's.
      "Cache-Control": "no-store",
    },
  });
}
