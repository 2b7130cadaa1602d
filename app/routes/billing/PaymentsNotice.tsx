import { useTranslation } from "~/lib/translations";
import type { PaymentsNotice as Notice } from "~/server/billing/pages.server";

/**
 * Says plainly that this server does not sell (PAYMENT_PROVIDER=none) or that payments are not
 * set up yet; an admin also reads which environment variables to set. Nothing when payments work.
 */
export function PaymentsNotice({ notice }: { notice: Notice }) {
  const { t } = useTranslation("billing");
  if (!notice) return null;
  const off = notice.mode === "off";
  return (
    <div
      role="status"
      data-testid="payments-notice"
      data-mode={notice.mode}
      className="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900 dark:border-amber-900/60 dark:bg-amber-950/40 dark:text-amber-100"
    >
      <p className="font-medium">{t(off ? "payments.offTitle" : "payments.notSetUpTitle")}</p>
      <p className="mt-1">{t(off ? "payments.off" : "payments.notSetUp")}</p>
      {!off && notice.variables ? (
        <div className="mt-2">
          <p>{t("payments.adminHint")}</p>
          <p className="mt-1 font-mono text-xs break-words">{notice.variables.join(" ")}</p>
        </div>
      ) : null}
    </div>
  );
}
