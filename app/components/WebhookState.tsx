import { useTranslation } from "~/lib/translations";

/** On, off by hand, or off because every retry of a delivery failed. */
export function WebhookState({ enabled, disabledReason }: { enabled: boolean; disabledReason: string | null }) {
  const { t } = useTranslation("webhooks");
  const label = enabled ? t("state.enabled") : disabledReason === "failing" ? t("state.failing") : t("state.disabled");
  return (
    <span
      data-testid="endpoint-state"
      data-enabled={enabled}
      className={
        enabled
          ? "rounded-full bg-primary-100 px-2 py-0.5 text-xs text-primary-800 dark:bg-primary-900/50 dark:text-primary-200"
          : "rounded-full bg-amber-100 px-2 py-0.5 text-xs text-amber-900 dark:bg-amber-950/60 dark:text-amber-200"
      }
    >
      {label}
    </span>
  );
}
