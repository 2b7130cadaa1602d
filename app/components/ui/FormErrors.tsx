import { Icon } from "~/components/Icon";
import { useErrorText } from "./error-text";

/** The form-level errors (a rejected sign-in, an expired token…), announced when they appear. */
export function FormErrors({ id, errors }: { id?: string; errors: readonly string[] | undefined }) {
  const text = useErrorText();
  if (!errors?.length) return <div id={id} hidden />;
  return (
    <div
      id={id}
      role="alert"
      data-testid="form-errors"
      className="flex gap-2 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/50 dark:text-red-200"
    >
      <Icon name="alert" className="mt-0.5 size-4 shrink-0" />
      <ul className="flex flex-col gap-1">
        {errors.map((error) => (
          <li key={error}>{text(error)}</li>
        ))}
      </ul>
    </div>
  );
}

/** A field's own errors, linked to its input by id (aria-describedby). */
export function FieldErrors({ id, errors }: { id: string; errors: readonly string[] | undefined }) {
  const text = useErrorText();
  return (
    <div id={id} className="min-h-0">
      {errors?.length ? (
        <ul className="mt-1 flex flex-col gap-0.5 text-sm text-red-700 dark:text-red-400" data-testid="field-errors">
          {errors.map((error) => (
            <li key={error}>{text(error)}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
