import { useState, type FormEvent } from "react";
import { Form, useNavigation, useRevalidator } from "react-router";
import { useTranslation } from "~/lib/translations";
import { Icon } from "~/components/Icon";
import { buttonClass, SubmitButton } from "~/components/ui/Button";
import { FormErrors } from "~/components/ui/FormErrors";
import { Input } from "~/components/ui/Input";
import { LocalTime } from "~/components/ui/LocalTime";
import { Section } from "~/components/ui/Section";
import { addPasskey, useWebAuthnSupport } from "~/lib/passkeys";
import { toast } from "~/lib/toast";
import { useLocale, useLocalize } from "~/lib/use-root-data";

export interface PasskeyItem {
  id: string;
  name: string | null;
  /** ISO date. */
  createdAt: string;
  deviceType: string;
}

/**
 * The security settings' passkeys: name, date added and kind of each, with rename and delete as plain
 * forms posted to /profile/passkeys (they work without JavaScript). Adding one needs the
 * browser's WebAuthn, so that form only appears once the page is hydrated in a browser that
 * has it.
 */
export function PasskeysSection({ passkeys }: { passkeys: PasskeyItem[] }) {
  const { t } = useTranslation("auth");
  const locale = useLocale();
  const action = useLocalize()("/profile/passkeys");
  return (
    // The id is where the forms' redirects (/profile/security#passkeys) land.
    <div id="passkeys" className="scroll-mt-6">
      <Section id="passkeys" title={t("passkeys.title")} description={t("passkeys.description")}>
        {passkeys.length ? (
          <ul className="divide-y divide-slate-200 dark:divide-slate-800" data-testid="passkey-list">
            {passkeys.map((passkey) => {
              const name = passkey.name ?? t("passkeys.unnamed");
              return (
                <li key={passkey.id} data-passkey={passkey.id} className="flex flex-col gap-3 py-3">
                  <div className="flex items-center gap-4">
                    <Icon name="shield" className="size-5 shrink-0 text-slate-400" />
                    <dl className="grid min-w-0 flex-1 gap-x-6 gap-y-1 text-sm sm:grid-cols-[minmax(0,2fr)_minmax(0,1.3fr)_minmax(0,1.3fr)]">
                      <div className="min-w-0">
                        <dt className="text-xs text-slate-600 dark:text-slate-400">{t("passkeys.name")}</dt>
                        <dd className="truncate font-medium" data-testid="passkey-name">
                          {name}
                        </dd>
                      </div>
                      <div className="min-w-0">
                        <dt className="text-xs text-slate-600 dark:text-slate-400">{t("passkeys.created")}</dt>
                        <dd className="text-slate-700 dark:text-slate-300">
                          <LocalTime iso={passkey.createdAt} locale={locale} />
                        </dd>
                      </div>
                      <div className="min-w-0">
                        <dt className="text-xs text-slate-600 dark:text-slate-400">{t("passkeys.deviceType")}</dt>
                        <dd className="text-slate-700 dark:text-slate-300">
                          {t(`passkeys.deviceTypes.${passkey.deviceType}`)}
                        </dd>
                      </div>
                    </dl>
                    <DeleteForm action={action} id={passkey.id} name={name} />
                  </div>
                  {/* Keyed by the name: a rename closes the form and shows the new name in it. */}
                  <RenameForm key={name} action={action} id={passkey.id} name={passkey.name ?? ""} />
                </li>
              );
            })}
          </ul>
        ) : (
          <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="passkey-empty">
            {t("passkeys.empty")}
          </p>
        )}
        <AddPasskey />
      </Section>
    </div>
  );
}

/** True while this page's form for `intent` on passkey `id` is on its way. */
function usePending(intent: string, id: string): boolean {
  const navigation = useNavigation();
  return (
    navigation.state !== "idle" && navigation.formData?.get("intent") === intent && navigation.formData.get("id") === id
  );
}

function DeleteForm({ action, id, name }: { action: string; id: string; name: string }) {
  const { t } = useTranslation("auth");
  const pending = usePending("delete", id);
  return (
    <Form method="post" action={action}>
      <input type="hidden" name="intent" value="delete" />
      <input type="hidden" name="id" value={id} />
      <SubmitButton
        variant="ghost"
        className="px-3 py-1.5"
        aria-label={t("passkeys.deleteLabel", { name })}
        pending={pending}
        pendingLabel={t("passkeys.deletePending")}
      >
        {t("passkeys.delete")}
      </SubmitButton>
    </Form>
  );
}

/** A disclosure, so renaming needs no JavaScript either. */
function RenameForm({ action, id, name }: { action: string; id: string; name: string }) {
  const { t } = useTranslation("auth");
  const pending = usePending("rename", id);
  const inputId = `passkey-name-${id}`;
  return (
    <details className="sm:ml-9">
      <summary className={buttonClass("ghost", "cursor-pointer list-none px-3 py-1.5")}>{t("passkeys.rename")}</summary>
      <Form method="post" action={action} className="mt-2 flex flex-col gap-2 sm:flex-row sm:items-end">
        <input type="hidden" name="intent" value="rename" />
        <input type="hidden" name="id" value={id} />
        <div className="flex flex-1 flex-col gap-1.5">
          <label htmlFor={inputId} className="text-sm font-medium text-slate-800 dark:text-slate-200">
            {t("passkeys.newName")}
          </label>
          <Input id={inputId} name="name" defaultValue={name} required pattern=".*\S.*" autoComplete="off" />
        </div>
        <SubmitButton variant="secondary" pending={pending} pendingLabel={t("passkeys.savePending")}>
          {t("passkeys.save")}
        </SubmitButton>
      </Form>
    </details>
  );
}

/** Name, then the browser's passkey dialog; the new passkey shows in the list at once. */
function AddPasskey() {
  const { t } = useTranslation("auth");
  const supported = useWebAuthnSupport();
  const revalidator = useRevalidator();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!supported) return null;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const name = String(new FormData(form).get("name") ?? "").trim();
    setPending(true);
    setError(null);
    try {
      await addPasskey(name);
      form.reset();
      toast({ type: "success", title: t("passkeys.added") });
      await revalidator.revalidate();
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setPending(false);
    }
  }

  return (
    <form
      onSubmit={(event) => void submit(event)}
      className="mt-5 flex flex-col gap-3 border-t border-slate-200 pt-5 dark:border-slate-800"
      data-testid="add-passkey"
    >
      <FormErrors errors={error ? [error] : undefined} />
      <div className="flex flex-col gap-2 sm:flex-row sm:items-end">
        <div className="flex flex-1 flex-col gap-1.5">
          <label htmlFor="new-passkey-name" className="text-sm font-medium text-slate-800 dark:text-slate-200">
            {t("passkeys.addName")}
          </label>
          <Input
            id="new-passkey-name"
            name="name"
            required
            pattern=".*\S.*"
            autoComplete="off"
            aria-describedby="new-passkey-name-hint"
          />
          <p id="new-passkey-name-hint" className="text-xs text-slate-500 dark:text-slate-400">
            {t("passkeys.addNameHint")}
          </p>
        </div>
        <SubmitButton pending={pending} pendingLabel={t("passkeys.addPending")} className="sm:mb-6">
          {t("passkeys.add")}
        </SubmitButton>
      </div>
    </form>
  );
}
