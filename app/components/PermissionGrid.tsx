import { FieldErrors } from "~/components/ui/FormErrors";
import { useTranslation } from "~/lib/translations";

/** What a role grants, or what the caller may grant: resource → actions, in the permission table's order. */
export type PermissionTable = Record<string, readonly string[]>;

/**
 * A custom role's permissions as checkboxes, one group per resource: the cells are what the
 * caller may grant (the server refuses any other), ticked as `checked` has them. Each posts
 * `permission=resource:action`.
 */
export function PermissionGrid({
  grantable,
  checked = {},
  errorId,
  errors,
}: {
  grantable: PermissionTable;
  checked?: PermissionTable;
  errorId: string;
  errors?: string[];
}) {
  const { t } = useTranslation("organization");
  return (
    <fieldset aria-describedby={errorId} className="flex flex-col gap-3">
      <legend className="mb-2 text-sm font-medium text-slate-900 dark:text-slate-100">
        {t("customRoles.permissions")}
      </legend>
      <div className="grid gap-3 sm:grid-cols-2">
        {Object.entries(grantable).map(([resource, actions]) => (
          <fieldset
            key={resource}
            data-resource={resource}
            className="rounded-md border border-slate-200 p-3 dark:border-slate-800"
          >
            <legend className="px-1 text-sm font-medium">{t(`customRoles.resources.${resource}`)}</legend>
            <div className="flex flex-wrap gap-x-4 gap-y-2">
              {actions.map((action) => {
                const id = `permission-${resource}-${action}`;
                return (
                  <label key={action} htmlFor={id} className="flex items-center gap-2 text-sm">
                    <input
                      id={id}
                      type="checkbox"
                      name="permission"
                      value={`${resource}:${action}`}
                      defaultChecked={checked[resource]?.includes(action) ?? false}
                      className="size-4 rounded border-slate-300 accent-primary-600 dark:border-slate-600"
                    />
                    {t(`customRoles.actions.${action}`)}
                  </label>
                );
              })}
            </div>
          </fieldset>
        ))}
      </div>
      <FieldErrors id={errorId} errors={errors} />
    </fieldset>
  );
}

/** What a role grants, in words: "Teams: Create, Update · Invitations: Create". */
export function usePermissionText() {
  const { t } = useTranslation("organization");
  return (permission: PermissionTable) => {
    const parts = Object.entries(permission)
      .filter(([, actions]) => actions.length)
      .map(
        ([resource, actions]) =>
          `${t(`customRoles.resources.${resource}`)}: ${actions.map((action) => t(`customRoles.actions.${action}`)).join(", ")}`,
      );
    return parts.length ? parts.join(" · ") : t("customRoles.grantsNothing");
  };
}
