import type { IconName } from "~/components/Icon";

/**
 * The admin console's menu entries for its reports: the dashboard, subscriptions and the
 * maintenance pages. Labels are keys of common.json (`pages.*`, also the search palette's).
 */
export const reportsMenu: { path: string; labelKey: string; icon: IconName }[] = [
  { path: "/admin/dashboard", labelKey: "pages.adminDashboard", icon: "dashboard" },
  { path: "/admin/subscriptions", labelKey: "pages.adminSubscriptions", icon: "credit-card" },
  { path: "/admin/maintenance/database", labelKey: "pages.adminDatabase", icon: "database" },
  { path: "/admin/maintenance/audit-log", labelKey: "pages.adminAuditLog", icon: "file-text" },
  { path: "/admin/maintenance/migrations", labelKey: "pages.adminMigrations", icon: "layers" },
];
