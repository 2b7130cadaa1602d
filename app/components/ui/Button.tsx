import type { ComponentProps, ReactNode } from "react";

const variants = {
  primary: "bg-primary-700 text-white hover:bg-primary-800 focus-visible:outline-primary-600 shadow-xs",
  secondary:
    "border border-slate-300 bg-white text-slate-900 hover:bg-slate-50 focus-visible:outline-slate-400 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100 dark:hover:bg-slate-800",
  danger: "bg-red-600 text-white hover:bg-red-700 focus-visible:outline-red-600 shadow-xs",
  dangerOutline:
    "border border-red-300 bg-white text-red-700 hover:bg-red-50 focus-visible:outline-red-600 dark:border-red-900 dark:bg-slate-900 dark:text-red-400 dark:hover:bg-red-950/40",
  ghost:
    "text-slate-700 hover:bg-slate-100 focus-visible:outline-slate-400 dark:text-slate-300 dark:hover:bg-slate-800",
} as const;

export type ButtonVariant = keyof typeof variants;

export function buttonClass(variant: ButtonVariant = "primary", extra = "") {
  return `inline-flex items-center justify-center gap-2 rounded-md px-4 py-2 text-sm font-medium focus-visible:outline-2 focus-visible:outline-offset-2 disabled:cursor-not-allowed disabled:opacity-60 ${variants[variant]} ${extra}`;
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
