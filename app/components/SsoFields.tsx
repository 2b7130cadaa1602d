import { useEffect, useState, type ReactNode } from "react";
import { Icon } from "~/components/Icon";
import { buttonClass } from "~/components/ui/Button";
import { Field, TextareaField } from "~/components/ui/Field";
import { inputClass } from "~/components/ui/Input";
import type { useSectionForm } from "~/components/ui/section-form";
import { useTranslation } from "~/lib/translations";

/** The single sign-on forms' shared fields (adding a connection, editing one). */

export type FieldOf = ReturnType<typeof useSectionForm>["fields"][string];

/** A fold for what few need, open when it holds an error to fix. */
export function Fold({
  label,
  open,
  children,
  testId,
}: {
  label: string;
  open: boolean;
  children: ReactNode;
  testId: string;
}) {
  return (
    <details
      data-testid={testId}
      open={open || undefined}
      className="group rounded-md border border-slate-200 px-4 py-3 dark:border-slate-800"
    >
      <summary className="flex cursor-pointer list-none items-center gap-2 text-sm font-medium">
        <Icon name="chevron-down" className="size-3 shrink-0 -rotate-90 transition-transform group-open:rotate-0" />
        {label}
      </summary>
      <div className="mt-3 flex flex-col gap-4">{children}</div>
    </details>
  );
}

/** The OpenID Connect endpoints, each optional (discovery fills them in). */
export function EndpointFields({
  fields,
}: {
  fields: Record<
    "discoveryEndpoint" | "authorizationEndpoint" | "tokenEndpoint" | "jwksEndpoint" | "userInfoEndpoint",
    FieldOf
  >;
}) {
  const { t } = useTranslation("sso");
  const props = { autoComplete: "off", spellCheck: false, placeholder: "https://" } as const;
  return (
    <>
      <Field field={fields.discoveryEndpoint} type="url" label={t("form.discoveryEndpoint")} inputProps={props} />
      <Field
        field={fields.authorizationEndpoint}
        type="url"
        label={t("form.authorizationEndpoint")}
        inputProps={props}
      />
      <Field field={fields.tokenEndpoint} type="url" label={t("form.tokenEndpoint")} inputProps={props} />
      <Field field={fields.jwksEndpoint} type="url" label={t("form.jwksEndpoint")} inputProps={props} />
      <Field field={fields.userInfoEndpoint} type="url" label={t("form.userInfoEndpoint")} inputProps={props} />
    </>
  );
}

/** Where a SAML connection's settings come from: metadata (pasted, or its address), or by hand. */
export function SamlSourceFields({
  fields,
  keep = false,
}: {
  fields: Record<"metadata" | "metadataUrl" | "entityId" | "entryPoint" | "cert", FieldOf>;
  /** On the edit form: empty fields keep what is stored. */
  keep?: boolean;
}) {
  const { t } = useTranslation("sso");
  const manual = [fields.entityId, fields.entryPoint, fields.cert];
  return (
    <>
      <TextareaField
        field={fields.metadata}
        label={t("form.metadata")}
        hint={t(keep ? "form.metadataKeepHint" : "form.metadataHint")}
        textareaProps={{ rows: 5, spellCheck: false, className: `${inputClass} font-mono text-xs` }}
      />
      <Field
        field={fields.metadataUrl}
        type="url"
        label={t("form.metadataUrl")}
        inputProps={{ autoComplete: "off", spellCheck: false, placeholder: "https://" }}
      />
      <Fold testId="saml-manual" label={t("form.manual")} open={keep || manual.some((field) => field.errors?.length)}>
        <Field
          field={fields.entityId}
          type="text"
          label={t("form.entityId")}
          inputProps={{ autoComplete: "off", spellCheck: false }}
        />
        <Field
          field={fields.entryPoint}
          type="url"
          label={t("form.entryPoint")}
          inputProps={{ autoComplete: "off", spellCheck: false, placeholder: "https://" }}
        />
        <TextareaField
          field={fields.cert}
          label={t("form.cert")}
          hint={keep ? t("form.certKeepHint") : undefined}
          textareaProps={{
            rows: 5,
            spellCheck: false,
            placeholder: "-----BEGIN CERTIFICATE-----",
            className: `${inputClass} font-mono text-xs`,
          }}
        />
      </Fold>
    </>
  );
}

/**
 * A value to enter elsewhere (at the identity provider, in DNS): a read-only field that selects
 * itself on focus, and with JavaScript a Copy button (the clipboard needs it).
 */
export function CopyField({ id, label, value }: { id: string; label: string; value: string }) {
  const { t } = useTranslation("sso");
  const [clipboard, setClipboard] = useState(false);
  const [copied, setCopied] = useState(false);
  useEffect(() => setClipboard(Boolean(navigator.clipboard)), []);
  return (
    <div className="flex min-w-0 flex-col gap-1.5">
      <label htmlFor={id} className="text-sm font-medium text-slate-800 dark:text-slate-200">
        {label}
      </label>
      <div className="flex min-w-0 gap-2">
        <input
          id={id}
          readOnly
          value={value}
          data-copy={id}
          onFocus={(event) => event.currentTarget.select()}
          className={`${inputClass} min-w-0 font-mono text-xs`}
        />
        {clipboard ? (
          <button
            type="button"
            aria-label={t("copy.label", { label })}
            className={buttonClass("secondary", "shrink-0 px-3 py-1.5")}
            onClick={() => {
              void navigator.clipboard.writeText(value).then(() => setCopied(true));
            }}
          >
            <Icon name={copied ? "check" : "file-text"} className="size-4 shrink-0" />
            <span className="hidden sm:inline">{t(copied ? "copy.copied" : "copy.copy")}</span>
          </button>
        ) : null}
      </div>
      <span role="status" className="sr-only">
        {copied ? t("copy.copiedLabel", { label }) : ""}
      </span>
    </div>
  );
}
