import { getInputProps, getTextareaProps, type FieldMetadata } from "@conform-to/react";
import type { ComponentProps, ReactNode } from "react";
import { FieldErrors } from "./FormErrors";
import { Input, inputClass } from "./Input";

type InputType = "text" | "email" | "password" | "url" | "hidden";
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any field of any form
type AnyField = FieldMetadata<any, any, string[]>;

/**
 * Label, input and errors for one conform field. The input carries aria-invalid and
 * aria-describedby (the error list, and the hint when there is one); the server renders the
 * same markup, so errors show next to the field with or without JavaScript.
 */
export function Field({
  field,
  type,
  label,
  hint,
  labelAside,
  inputProps,
}: {
  field: AnyField;
  type: InputType;
  label: ReactNode;
  hint?: ReactNode;
  /** Something on the label's line, at its end (a "forgot password?" link). */
  labelAside?: ReactNode;
  inputProps?: Omit<ComponentProps<"input">, "type" | "name" | "id">;
}) {
  const { key, ...conformProps } = getInputProps(field, { type, ariaAttributes: true });
  return (
    <FieldFrame field={field} label={label} hint={hint} labelAside={labelAside}>
      {(aria) => <Input key={key} {...conformProps} {...inputProps} {...aria} />}
    </FieldFrame>
  );
}

/** The same for a multi-line text. */
export function TextareaField({
  field,
  label,
  hint,
  textareaProps,
}: {
  field: AnyField;
  label: ReactNode;
  hint?: ReactNode;
  textareaProps?: Omit<ComponentProps<"textarea">, "name" | "id">;
}) {
  const { key, ...conformProps } = getTextareaProps(field, { ariaAttributes: true });
  return (
    <FieldFrame field={field} label={label} hint={hint}>
      {(aria) => <textarea key={key} className={inputClass} {...conformProps} {...textareaProps} {...aria} />}
    </FieldFrame>
  );
}

function FieldFrame({
  field,
  label,
  hint,
  labelAside,
  children,
}: {
  field: AnyField;
  label: ReactNode;
  hint?: ReactNode;
  labelAside?: ReactNode;
  children: (aria: { "aria-invalid": true | undefined; "aria-describedby": string }) => ReactNode;
}) {
  const hintId = hint ? `${field.id}-hint` : undefined;
  const describedBy = [field.errorId, hintId].filter(Boolean).join(" ");
  return (
    <div className="flex flex-col gap-1.5">
      <div className="flex items-baseline justify-between gap-2">
        <label htmlFor={field.id} className="text-sm font-medium text-slate-800 dark:text-slate-200">
          {label}
        </label>
        {labelAside}
      </div>
      {children({ "aria-invalid": field.errors?.length ? true : undefined, "aria-describedby": describedBy })}
      {hint ? (
        <p id={hintId} className="text-xs text-slate-500 dark:text-slate-400">
          {hint}
        </p>
      ) : null}
      <FieldErrors id={field.errorId} errors={field.errors} />
    </div>
  );
}
