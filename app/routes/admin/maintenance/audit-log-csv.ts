import type { Route } from "./+types/audit-log-csv";
import { searchParamsOf } from "~/lib/reports";
import { auditLogFilter } from "~/server/report-queries.server";
import { auditLogCsv } from "~/server/admin/audit-log.server";
import { requireAdminUser } from "~/server/admin/pages.server";

/**
 * The audit log under the page's filter, as a CSV download. A resource route: it answers on
 * its own, so it checks the admin itself like every admin loader.
 */
export function loader({ url, context }: Route.LoaderArgs) {
  requireAdminUser(context);
  const filter = auditLogFilter.parse(searchParamsOf(url));
  const stamp = new Date().toISOString().slice(0, 19).replace(/[-:]/g, "").replace("T", "-");
  return new Response(auditLogCsv(filter), {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="audit-log-${stamp}.csv"`,
      // Personal data (addresses, IPs): never kept by a shared cache or the browser's.
      "Cache-Control": "no-store",
    },
  });
}
