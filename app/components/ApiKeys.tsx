import { getFormProps, getInputProps, getSelectProps } from "@conform-to/react";
import { useActionData, useFetcher } from "react-router";
import { CopyField } from "~/components/SsoFields";
import { SubmitButton } from "~/components/ui/Button";
import { Field } from "~/components/ui/Field";
import { FieldErrors, FormErrors } from "~/components/ui/FormErrors";
import { inputClass } from "~/components/ui/Input";
import { LocalTime } from "~/components/ui/LocalTime";
import { Section } from "~/components/ui/Section";
import { useRowForm, useSectionForm } from "~/components/ui/section-form";
import { createKeySchema, EXPIRY_DAYS, RATE_WINDOWS, REFILL_PERIODS } from "~/lib/api-key-forms";
import { useTranslation } from "~/lib/translations";
import { useLocale } from "~/lib/use-root-data";

export interface KeyRow {
  id: string;
  name: string;
  start: string;
  createdAt: string;
  lastUsed: string | null;
  expiresAt: string | null;
  enabled: boolean;
  status: "active" | "disabled" | "expired";
}

type Created = { key?: string; created?: { id: string; name: string; key: string } } | undefined;

/**
 * An API key page's body, shared by the personal and the organization page: the key just made
 * (shown once, from the create action's reply), the keys, and the create form. Every form is
 * a plain POST without JavaScript.
 */
export function ApiKeys({ keys, grantable, scope }: { keys: KeyRow[]; grantable: string[]; scope: "user" | "org" }) {
  const { t } = useTranslation("apiKeys");
  const fetcher = useFetcher({ key: "create-key" });
  const actionData = useActionData() as Created;
  const created = (fetcher.data as Created)?.created ?? (actionData?.key === "create-key" ? actionData.created : null);
  return (
    <div className="flex flex-col gap-8">
      {created ? <CreatedKey name={created.name} value={created.key} /> : null}
      <Section id="api-keys" title={t(`list.title.${scope}`)} description={t(`list.description.${scope}`)}>
        {keys.length ? (
          <ul className="divide-y divide-slate-200 dark:divide-slate-800" data-testid="api-key-list">
            {keys.map((key) => (
              <KeyItem key={key.id} row={key} />
            ))}
          </ul>
        ) : (
          <p className="text-sm text-slate-600 dark:text-slate-400">{t("list.empty")}</p>
        )}
      </Section>
      <Section id="create-key" title={t("create.title")} description={t(`create.description.${scope}`)}>
        <CreateKeyForm key={created?.id ?? "new"} grantable={grantable} />
      </Section>
    </div>
  );
}

/** The new key, this once: a read-only field to copy from (with JavaScript, a Copy button too). */
function CreatedKey({ name, value }: { name: string; value: string }) {
  const { t } = useTranslation("apiKeys");
  return (
    <div
      role="status"
      className="flex flex-col gap-4 rounded-xl border border-emerald-300 bg-emerald-50 p-6 dark:border-emerald-800 dark:bg-emerald-950/40"
      data-testid="created-key"
    >
      <div>
        <h2 className="text-lg font-semibold">{t("created.title", { name })}</h2>
        <p className="mt-1 text-sm text-slate-700 dark:text-slate-300">{t("created.once")}</p>
      </div>
      <CopyField id="created-key-value" label={t("created.label")} value={value} />
    </div>
  );
}

const statusClass = {
  active: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/50 dark:text-emerald-200",
  disabled: "bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-300",
  expired: "bg-amber-100 text-amber-900 dark:bg-amber-900/50 dark:text-amber-200",
} as const;

function KeyItem({ row }: { row: KeyRow }) {
  const { t } = useTranslation("apiKeys");
  const locale = useLocale();
  const rename = useRowForm(`rename-key-${row.id}`);
  const toggle = useRowForm(`toggle-key-${row.id}`);
  const remove = useRowForm(`delete-key-${row.id}`);
  const when = (iso: string | null, none: string) => (iso ? <LocalTime iso={iso} locale={locale} /> : none);
  return (
    <li data-key={row.name} className="flex flex-col gap-3 py-4 text-sm">
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-medium break-all">{row.name}</span>
        <code className="rounded bg-slate-100 px-1.5 py-0.5 text-xs dark:bg-slate-800" data-testid="key-start">
          {row.start}…
        </code>
        <span className={`rounded-full px-2 py-0.5 text-xs font-medium ${statusClass[row.status]}`}>
          {t(`status.${row.status}`)}
        </span>
      </div>
      <dl className="grid grid-cols-1 gap-x-6 gap-y-1 text-slate-600 sm:grid-cols-3 dark:text-slate-400">
        <div>
          <dt className="inline">{t("list.created")}: </dt>
          <dd className="inline">{when(row.createdAt, "")}</dd>
        </div>
        <div>
          <dt className="inline">{t("list.lastUsed")}: </dt>
          <dd className="inline">{when(row.lastUsed, t("list.never"))}</dd>
        </div>
        <div>
          <dt className="inline">{t("list.expires")}: </dt>
          <dd className="inline">{when(row.expiresAt, t("list.noExpiry"))}</dd>
        </div>
      </dl>
      <div className="flex flex-wrap items-start gap-2">
        <rename.fetcher.Form method="post" className="flex items-start gap-2">
          <input type="hidden" name="intent" value="rename-key" />
          <input type="hidden" name="keyId" value={row.id} />
          <label htmlFor={`rename-${row.id}`} className="sr-only">
            {t("list.newName", { name: row.name })}
          </label>
          <input
            id={`rename-${row.id}`}
            name="name"
            defaultValue={row.name}
            required
            maxLength={32}
            className={`${inputClass} w-40`}
          />
          <SubmitButton variant="secondary" className="px-3 py-1.5 whitespace-nowrap" pending={rename.pending}>
            {t("list.rename")}
          </SubmitButton>
        </rename.fetcher.Form>
        <toggle.fetcher.Form method="post">
          <input type="hidden" name="intent" value="toggle-key" />
          <input type="hidden" name="keyId" value={row.id} />
          <input type="hidden" name="enabled" value={row.enabled ? "false" : "true"} />
          <SubmitButton
            variant="secondary"
            className="px-3 py-1.5 whitespace-nowrap"
            pending={toggle.pending}
            aria-label={t(row.enabled ? "list.disableLabel" : "list.enableLabel", { name: row.name })}
          >
            {t(row.enabled ? "list.disable" : "list.enable")}
          </SubmitButton>
        </toggle.fetcher.Form>
        {/* Deleting asks once more, with or without JavaScript: the confirmation is inside a disclosure. */}
        <details className="group">
          <summary className="cursor-pointer list-none rounded-md px-3 py-1.5 font-medium text-red-700 hover:bg-red-50 dark:text-red-400 dark:hover:bg-red-950/40">
            {t("list.delete")}
          </summary>
          <remove.fetcher.Form method="post" className="mt-2 flex flex-col gap-2">
            <p>{t("list.deleteConfirm", { name: row.name })}</p>
            <input type="hidden" name="intent" value="delete-key" />
            <input type="hidden" name="keyId" value={row.id} />
            <div>
              <SubmitButton variant="danger" className="px-3 py-1.5 whitespace-nowrap" pending={remove.pending}>
                {t("list.deleteSubmit", { name: row.name })}
              </SubmitButton>
            </div>
          </remove.fetcher.Form>
        </details>
      </div>
      <FormErrors errors={[...rename.errors, ...toggle.errors, ...remove.errors]} />
    </li>
  );
}

function CreateKeyForm({ grantable }: { grantable: string[] }) {
  const { t } = useTranslation("apiKeys");
  const { fetcher, form, fields, pending } = useSectionForm("create-key", createKeySchema, {
    expiry: "none",
    permission: grantable,
    refill: "none",
    rateWindow: "day",
  });
  const select = (field: typeof fields.expiry | typeof fields.refill | typeof fields.rateWindow) => {
    const { key, ...props } = getSelectProps(field, { ariaAttributes: true });
    return { key, props };
  };
  const expiry = select(fields.expiry);
  const refill = select(fields.refill);
  const rateWindow = select(fields.rateWindow);
  const number = (field: typeof fields.budget | typeof fields.rateLimit) => {
    const { key, ...props } = getInputProps(field, { type: "number", ariaAttributes: true });
    return { key, props };
  };
  const budget = number(fields.budget);
  const rateLimit = number(fields.rateLimit);
  const label = "block text-sm font-medium";
  return (
    <fetcher.Form method="post" {...getFormProps(form)} className="flex max-w-xl flex-col gap-5">
      <input type="hidden" name="intent" value="create-key" />
      <FormErrors id={form.errorId} errors={form.errors} />
      <Field field={fields.name} type="text" label={t("create.name")} inputProps={{ autoComplete: "off" }} />
      <div>
        <label htmlFor={fields.expiry.id} className={label}>
          {t("create.expiry")}
        </label>
        <select key={expiry.key} {...expiry.props} className={`${inputClass} mt-1`}>
          {EXPIRY_DAYS.map((days) => (
            <option key={days} value={days}>
              {days === "none" ? t("create.noExpiry") : t("create.days", { count: Number(days) })}
            </option>
          ))}
        </select>
      </div>
      <fieldset>
        <legend className={label}>{t("create.permissions")}</legend>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{t("create.permissionsHint")}</p>
        {grantable.length ? (
          <div className="mt-2 grid grid-cols-1 gap-2 sm:grid-cols-2">
            {grantable.map((value) => {
              const [resource, action] = value.split(":");
              const id = `permission-${value.replace(":", "-")}`;
              return (
                <label key={value} htmlFor={id} className="flex items-center gap-2 text-sm">
                  <input
                    id={id}
                    type="checkbox"
                    name="permission"
                    value={value}
                    defaultChecked={(fields.permission.initialValue as string[] | undefined)?.includes(value) ?? true}
                    className="size-4 rounded border-slate-300 accent-primary-600 dark:border-slate-600"
                  />
                  <span>
                    {t(`resources.${resource}`)}: {t(`actions.${action}`)}
                  </span>
                </label>
              );
            })}
          </div>
        ) : (
          <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">{t("create.noPermissions")}</p>
        )}
        <FieldErrors id={fields.permission.errorId} errors={fields.permission.errors} />
      </fieldset>
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
        <div>
          <label htmlFor={fields.budget.id} className={label}>
            {t("create.budget")}
          </label>
          <input key={budget.key} {...budget.props} min={1} className={`${inputClass} mt-1`} />
          <FieldErrors id={fields.budget.errorId} errors={fields.budget.errors} />
        </div>
        <div>
          <label htmlFor={fields.refill.id} className={label}>
            {t("create.refill")}
          </label>
          <select key={refill.key} {...refill.props} className={`${inputClass} mt-1`}>
            {Object.keys(REFILL_PERIODS).map((period) => (
              <option key={period} value={period}>
                {t(`refill.${period}`)}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor={fields.rateLimit.id} className={label}>
            {t("create.rateLimit")}
          </label>
          <input key={rateLimit.key} {...rateLimit.props} min={1} className={`${inputClass} mt-1`} />
          <FieldErrors id={fields.rateLimit.errorId} errors={fields.rateLimit.errors} />
        </div>
        <div>
          <label htmlFor={fields.rateWindow.id} className={label}>
            {t("create.rateWindow")}
          </label>
          <select key={rateWindow.key} {...rateWindow.props} className={`${inputClass} mt-1`}>
            {Object.keys(RATE_WINDOWS).map((window) => (
              <option key={window} value={window}>
                {t(`window.${window}`)}
              </option>
            ))}
          </select>
        </div>
      </div>
      <p className="text-sm text-slate-600 dark:text-slate-400">{t("create.limitsHint")}</p>
      <div>
        <SubmitButton pending={pending} pendingLabel={t("create.pending")} className="whitespace-nowrap">
          {t("create.submit")}
        </SubmitButton>
      </div>
    </fetcher.Form>
  );
}
