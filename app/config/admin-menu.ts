import type { IconName } from "~/components/Icon";

/**
 * The admin console's side menu, in order; a group's pages sit under its heading. Labels
 * are keys of common.json (`pages.*`, also the search palette's; `nav.maintenance`).
 */
export type AdminMenuItem = { path: string; labelKey: string; icon: IconName };

export const adminMenu: (AdminMenuItem | { groupKey: string; items: AdminMenuItem[] })[] = [
  { path: "/admin/dashboard", labelKey: "pages.adminDashboard", icon: "dashboard" },
  { path: "/admin/users", labelKey: "pages.adminUsers", icon: "users" },
  { path: "/admin/subscriptions", labelKey: "pages.adminSubscriptions", icon: "credit-card" },
  {
    groupKey: "nav.maintenance",
    items: [
      { path: "/admin/maintenance/database", labelKey: "pages.adminDatabase", icon: "database" },
      { path: "/admin/maintenance/audit-log", labelKey: "pages.adminAuditLog", icon: "file-text" },
      { path: "/admin/maintenance/migrations", labelKey: "pages.adminMigrations", icon: "layers" },
    ],
  },
];
