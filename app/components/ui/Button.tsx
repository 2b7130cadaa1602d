import type { ComponentProps, ReactNode } from "react";

/** The look of each kind of button: the `btn-*` classes of app.css. */
const variants = {
  primary: "btn-primary",
  secondary: "btn-secondary",
  danger: "btn-danger",
  dangerOutline: "btn-danger-outline",
  ghost: "btn-ghost",
} as const;

export type ButtonVariant = keyof typeof variants;

/** A button's classes (app.css); `extra` utilities win over them. */
export function buttonClass(variant: ButtonVariant = "primary", extra = "") {
  return extra ? `btn ${variants[variant]} ${extra}` : `btn ${variants[variant]}`;
}

export function Spinner({ className = "size-4" }: { className?: string }) {
  return (
    <svg className={`animate-spin ${className}`} viewBox="0 0 24 24" fill="none" aria-hidden="true">
      <circle cx="12" cy="12" r="10" stroke="currentColor" strokeWidth="4" className="opacity-25" />
      <path d="M4 12a8 8 0 0 1 8-8" stroke="currentColor" strokeWidth="4" strokeLinecap="round" />
    </svg>
  );
}

/**
 * A submit button that shows the pending state: disabled, a spinner and (optionally) another
 * label while its form is on its way. Without JavaScript it is a plain submit button.
 */
export function SubmitButton({
  pending = false,
  pendingLabel,
  variant = "primary",
  className = "",
  children,
  ...props
}: Omit<ComponentProps<"button">, "type"> & {
  pending?: boolean;
  pendingLabel?: ReactNode;
  variant?: ButtonVariant;
}) {
  return (
    <button
      type="submit"
      {...props}
      disabled={pending || props.disabled}
      aria-busy={pending || undefined}
      data-pending={pending || undefined}
      className={buttonClass(variant, className)}
    >
      {pending ? <Spinner /> : null}
      {pending && pendingLabel ? pendingLabel : children}
    </button>
  );
}
