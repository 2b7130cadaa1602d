import { Icon } from "~/components/Icon";
import { useTranslation } from "~/lib/translations";

/** A domain's verification, as an icon and words (the words for screen readers and narrow screens alike). */
export function SsoDomainState({ verified }: { verified: boolean }) {
  const { t } = useTranslation("sso");
  return verified ? (
    <span className="inline-flex items-center gap-1 text-emerald-700 dark:text-emerald-400" data-verified="true">
      <Icon name="check-circle" className="size-4 shrink-0" />
      <span className="text-xs font-medium">{t("domainState.verified")}</span>
    </span>
  ) : (
    <span className="inline-flex items-center gap-1 text-amber-700 dark:text-amber-400" data-verified="false">
      <Icon name="alert" className="size-4 shrink-0" />
      <span className="text-xs font-medium">{t("domainState.unverified")}</span>
    </span>
  );
}
