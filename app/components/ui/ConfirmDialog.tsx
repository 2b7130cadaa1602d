import { getFormProps, type FormMetadata } from "@conform-to/react";
import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { Form, useNavigate } from "react-router";
import { AppLink } from "~/components/AppLink";
import { buttonClass, SubmitButton, type ButtonVariant } from "./Button";
import { FormErrors } from "./FormErrors";
import { usePendingIntent } from "./pending";

/**
 * A confirmation drawn over the page it is about. It is a page of its own (a nested route
 * with its own URL), so without JavaScript it is simply rendered open, the page behind
 * dimmed; with JavaScript it becomes modal (focus stays inside, the page behind is inert),
 * Escape goes back to `closeTo`, and focus returns to what opened it.
 */
export function ConfirmDialog({
  title,
  closeTo,
  children,
}: {
  title: ReactNode;
  closeTo: string;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const navigate = useNavigate();
  const titleId = useId();
  // What had focus as the dialog opened (the link to it, in the page behind) has it again once
  // the dialog is gone, so a keyboard user carries on from where they were. Read while the
  // dialog first renders: by the time effects run, a field's autoFocus has taken focus.
  const [active] = useState(() => (typeof document === "undefined" ? null : document.activeElement));
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener =
      active instanceof HTMLElement && active !== document.body && !dialog.contains(active) ? active : null;
    if (!dialog.matches(":modal")) {
      dialog.close();
      dialog.showModal();
    }
    return () => {
      if (!dialog.isConnected && opener?.isConnected) {
        // An item of a menu that closed as the dialog opened: focus goes to the menu's button.
        const menu = opener.closest("details:not([open])")?.querySelector("summary");
        (menu ?? opener).focus({ preventScroll: true });
      }
    };
  }, [active]);
  return (
    <dialog
      ref={ref}
      open
      aria-labelledby={titleId}
      data-testid="confirm-dialog"
      onCancel={(event) => {
        event.preventDefault();
        navigate(closeTo, { preventScrollReset: true });
      }}
      className="fixed inset-0 z-50 m-auto h-fit w-[calc(100%-2rem)] max-w-md rounded-xl border border-slate-200 bg-white p-6 text-slate-900 shadow-xl backdrop:bg-slate-950/50 [&:not(:modal)]:shadow-[0_0_0_100vmax_rgb(2_6_23/0.5)] dark:border-slate-800 dark:bg-slate-900 dark:text-slate-100"
    >
      <h2 id={titleId} className="text-lg font-semibold">
        {title}
      </h2>
      <div className="mt-3">{children}</div>
    </dialog>
  );
}

/**
 * A dialog's form, the one way the confirmations are drawn: it posts `intent`, says `body`,
 * shows the errors the server answered, then `children` (any fields), then the buttons: a way
 * back to `closeTo` (a link, so it needs no JavaScript) and the submit button, pending while
 * that intent is on its way.
 */
export function ConfirmForm<Schema extends Record<string, unknown>>({
  title,
  closeTo,
  form,
  intent,
  body,
  cancelLabel,
  submitLabel,
  pendingLabel,
  variant = "danger",
  children,
}: {
  title: ReactNode;
  closeTo: string;
  form: FormMetadata<Schema, string[]>;
  intent: string;
  body?: ReactNode;
  cancelLabel: ReactNode;
  submitLabel: ReactNode;
  pendingLabel?: ReactNode;
  variant?: ButtonVariant;
  children?: ReactNode;
}) {
  const pending = usePendingIntent(intent);
  return (
    <ConfirmDialog title={title} closeTo={closeTo}>
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
        <input type="hidden" name="intent" value={intent} />
        {body}
        <FormErrors id={form.errorId} errors={form.errors} />
        {children}
        <div className="mt-2 flex flex-wrap justify-end gap-3">
          <AppLink to={closeTo} preventScrollReset className={buttonClass("secondary")}>
            {cancelLabel}
          </AppLink>
          <SubmitButton variant={variant} pending={pending} pendingLabel={pendingLabel}>
            {submitLabel}
          </SubmitButton>
        </div>
      </Form>
    </ConfirmDialog>
  );
}

/** A dialog's line of text. */
export function DialogText({ children }: { children: ReactNode }) {
  return <p className="text-sm text-slate-600 dark:text-slate-400">{children}</p>;
}
