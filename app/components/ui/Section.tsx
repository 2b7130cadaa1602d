import type { ReactNode } from "react";

/** A page section: a titled card, red-edged for irreversible actions. */
export function Section({
  id,
  title,
  description,
  tone = "default",
  children,
}: {
  id: string;
  title: ReactNode;
  description: ReactNode;
  tone?: "default" | "danger";
  children: ReactNode;
}) {
  const border = tone === "danger" ? "border-red-200 dark:border-red-900/70" : "border-slate-200 dark:border-slate-800";
  return (
    <section
      aria-labelledby={`${id}-title`}
      data-section={id}
      className={`rounded-xl border bg-white p-6 shadow-sm dark:bg-slate-900/60 ${border}`}
    >
      <h2
        id={`${id}-title`}
        className={`text-lg font-semibold ${tone === "danger" ? "text-red-700 dark:text-red-400" : ""}`}
      >
        {title}
      </h2>
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{description}</p>
      <div className="mt-5">{children}</div>
    </section>
  );
}
