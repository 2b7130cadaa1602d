import { useId, type ReactNode } from "react";
import { Form, useLocation, useNavigation } from "react-router";
import { AppLink } from "~/components/AppLink";
import { buttonClass, SubmitButton } from "~/components/ui/Button";

/** The query parameter that opens a run's confirmation, and the field that confirms it. */
export const CONFIRM_PARAM = "confirm";
export const CONFIRMED_FIELD = "confirmed";

/**
 * A button that asks before it runs something, without JavaScript: the button is a link to
 * the same page with `?confirm=<name>`, where the question shows with the button that posts
 * (it sends `confirmed=yes`, which the action requires) and a way back. `asking` opens the
 * question without the link too, e.g. when the action refused a post that skipped it.
 * `fields` are the hidden fields the post carries besides.
 */
export function ConfirmRun({
  name,
  label,
  question,
  detail,
  confirmLabel,
  cancelLabel,
  pendingLabel,
  fields = {},
  disabled = false,
  asking: forced = false,
  variant = "primary",
}: {
  name: string;
  label: ReactNode;
  question: ReactNode;
  detail?: ReactNode;
  confirmLabel: ReactNode;
  cancelLabel: ReactNode;
  pendingLabel?: string;
  fields?: Record<string, string>;
  disabled?: boolean;
  asking?: boolean;
  variant?: "primary" | "secondary";
}) {
  const id = useId();
  const { pathname, search } = useLocation();
  const navigation = useNavigation();
  const asking = !disabled && (forced || new URLSearchParams(search).get(CONFIRM_PARAM) === name);
  const control = "h-9 shrink-0 whitespace-nowrap";
  if (!asking) {
    return disabled ? (
      <button type="button" disabled className={buttonClass(variant, control)}>
        {label}
      </button>
    ) : (
      <AppLink
        to={`${pathname}?${new URLSearchParams({ [CONFIRM_PARAM]: name })}`}
        preventScrollReset
        className={buttonClass(variant, control)}
        data-confirm-open={name}
      >
        {label}
      </AppLink>
    );
  }
  const pending =
    navigation.state === "submitting" &&
    navigation.formData?.get(CONFIRMED_FIELD) === "yes" &&
    Object.entries(fields).every(([key, value]) => navigation.formData?.get(key) === value);
  return (
    <div
      role="group"
      aria-labelledby={`${id}-question`}
      className="rounded-lg border border-amber-300 bg-amber-50/70 p-4 text-sm dark:border-amber-800 dark:bg-amber-950/30"
      data-confirm={name}
    >
      <p id={`${id}-question`} className="font-medium">
        {question}
      </p>
      {detail ? <p className="mt-1 text-slate-700 dark:text-slate-300">{detail}</p> : null}
      {/* Posted to the page without the question in its address, so the answer shows on its own. */}
      <Form method="post" action={pathname} preventScrollReset className="mt-3 flex flex-wrap items-center gap-2">
        {Object.entries(fields).map(([key, value]) => (
          <input key={key} type="hidden" name={key} value={value} />
        ))}
        <input type="hidden" name={CONFIRMED_FIELD} value="yes" />
        <SubmitButton variant={variant} pending={pending} pendingLabel={pendingLabel} className={control}>
          {confirmLabel}
        </SubmitButton>
        <AppLink to={pathname} preventScrollReset className={buttonClass("ghost", control)}>
          {cancelLabel}
        </AppLink>
      </Form>
    </div>
  );
}

/** A refusal of the page's action, shown where the run was asked for. */
export function RunRefusal({ children }: { children: ReactNode }) {
  return (
    <p
      role="alert"
      className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-900 dark:bg-red-950/40 dark:text-red-200"
      data-run-refusal
    >
      {children}
    </p>
  );
}
