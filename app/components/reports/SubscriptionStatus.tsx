import { useTranslation } from "~/lib/translations";

/** Chart colours per subscription status (class names in full, for Tailwind). */
const FILLS: Record<string, string> = {
  active: "fill-primary-500",
  trialing: "fill-sky-500",
  past_due: "fill-amber-500",
  unpaid: "fill-red-500",
  canceled: "fill-slate-400",
  incomplete: "fill-violet-400",
  incomplete_expired: "fill-slate-300",
  paused: "fill-indigo-400",
};

export const statusFill = (status: string) => FILLS[status] ?? "fill-slate-500";

const BADGES: Record<string, string> = {
  active: "bg-primary-100 text-primary-800 dark:bg-primary-950 dark:text-primary-200",
  trialing: "bg-sky-100 text-sky-800 dark:bg-sky-950 dark:text-sky-200",
  past_due: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200",
  unpaid: "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-200",
};

/** A status in words; a status the provider added since this was written shows as it is. */
export function useStatusLabel() {
  const { t } = useTranslation("reports");
  return (status: string) => t(`status.${status}`, { defaultValue: status });
}

export function StatusBadge({ status }: { status: string }) {
  const label = useStatusLabel();
  const tone = BADGES[status] ?? "bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-300";
  return (
    <span data-status={status} className={`rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ${tone}`}>
      {label(status)}
    </span>
  );
}
