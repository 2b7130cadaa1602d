import { getInputProps, type FieldMetadata } from "@conform-to/react";
import type { ComponentProps, ReactNode } from "react";
import { FieldErrors } from "./FormErrors";
import { Input } from "./Input";

type InputType = "text" | "email" | "password" | "url" | "hidden";

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
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any field of any form
  field: FieldMetadata<any, any, string[]>;
  type: InputType;
  label: ReactNode;
  hint?: ReactNode;
  /** Something on the label's line, at its end (a "forgot password?" link). */
  labelAside?: ReactNode;
  inputProps?: Omit<ComponentProps<"input">, "type" | "name" | "id">;
}) {
  const { key, ...conformProps } = getInputProps(field, { type, ariaAttributes: true });
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
      <Input
        key={key}
        {...conformProps}
        {...inputProps}
        aria-invalid={field.errors?.length ? true : undefined}
        aria-describedby={describedBy}
      />
      {hint ? (
        <p id={hintId} className="text-xs text-slate-500 dark:text-slate-400">
          {hint}
        </p>
      ) : null}
      <FieldErrors id={field.errorId} errors={field.errors} />
    </div>
  );
}
