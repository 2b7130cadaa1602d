import { getInputProps, type FieldMetadata } from "@conform-to/react";
import type { ReactNode } from "react";
import { FieldErrors } from "./FormErrors";

/** A labelled checkbox bound to a conform field (value "on" when ticked; default it with the form's defaultValue). */
export function Checkbox({
  field,
  label,
}: {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any field of any form
  field: FieldMetadata<any, any, string[]>;
  label: ReactNode;
}) {
  const { key, ...props } = getInputProps(field, { type: "checkbox", ariaAttributes: true });
  return (
    <div>
      <label htmlFor={field.id} className="flex items-center gap-2 text-sm text-slate-700 dark:text-slate-300">
        <input
          key={key}
          {...props}
          aria-describedby={field.errorId}
          className="size-4 rounded border-slate-300 accent-primary-600 dark:border-slate-600"
        />
        {label}
      </label>
      <FieldErrors id={field.errorId} errors={field.errors} />
    </div>
  );
}
