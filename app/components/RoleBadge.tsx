import { roleNames } from "~/lib/organization-paths";
import { useTranslation } from "~/lib/translations";

/** A member's role in words: "Admin, Member" for one with two roles; one without a translation reads as its name. */
export function useRoleText() {
  const { t } = useTranslation("organization");
  // Without options t() answers from a cache (a page lists fifty roles); for a key it does
  // not know, i18next answers the key itself.
  return (role: string) =>
    roleNames(role)
      .map((name) => {
        const text = t(`roles.${name}`);
        return text === `roles.${name}` ? name : text;
      })
      .join(", ");
}

export function RoleBadge({ role }: { role: string }) {
  const roleText = useRoleText();
  return (
    <span
      data-role={role}
      className="rounded-full bg-slate-100 px-2 py-0.5 text-xs font-medium text-slate-700 dark:bg-slate-800 dark:text-slate-300"
    >
      {roleText(role)}
    </span>
  );
}
