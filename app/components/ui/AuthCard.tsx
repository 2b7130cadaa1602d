import type { ReactNode } from "react";

/** The narrow centred card of the sign-in, sign-up and password pages. */
export function AuthCard({
  title,
  description,
  children,
  footer,
}: {
  title: ReactNode;
  description?: ReactNode;
  children: ReactNode;
  footer?: ReactNode;
}) {
  return (
    <div className="mx-auto w-full max-w-sm py-4">
      <h1 className="text-2xl font-bold tracking-tight">{title}</h1>
      {description ? <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">{description}</p> : null}
      <div className="mt-8 rounded-xl border border-slate-200 bg-white p-6 shadow-sm dark:border-slate-800 dark:bg-slate-900/60">
        {children}
      </div>
      {footer ? <p className="mt-6 text-center text-sm text-slate-600 dark:text-slate-400">{footer}</p> : null}
    </div>
  );
}

/** A status panel (a sent email, a finished step) in place of a form. */
export function Notice({
  tone = "success",
  title,
  children,
  testId,
}: {
  tone?: "success" | "error" | "info";
  title: ReactNode;
  children?: ReactNode;
  testId?: string;
}) {
  const tones = {
    success:
      "border-primary-200 bg-primary-50 text-primary-900 dark:border-primary-900 dark:bg-primary-950/50 dark:text-primary-100",
    error: "border-red-200 bg-red-50 text-red-900 dark:border-red-900 dark:bg-red-950/50 dark:text-red-100",
    info: "border-slate-200 bg-slate-50 text-slate-900 dark:border-slate-700 dark:bg-slate-800/60 dark:text-slate-100",
  };
  return (
    <div
      role={tone === "error" ? "alert" : "status"}
      data-testid={testId}
      className={`rounded-lg border px-4 py-3 text-sm ${tones[tone]}`}
    >
      <p className="font-semibold">{title}</p>
      {children ? <div className="mt-1 opacity-90">{children}</div> : null}
    </div>
  );
}

export const linkClass = "font-medium text-primary-700 underline-offset-4 hover:underline dark:text-primary-400";
