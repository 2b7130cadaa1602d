import { useEffect } from "react";
import { useTranslation } from "~/lib/translations";
import { toast } from "~/lib/toast";

const HOUR = 60 * 60 * 1000;

/**
 * Polls builds/latest.json (every hour and whenever the tab regains focus). When it names a
 * build other than the one this page runs, offers a reload once.
 */
export function NewVersionWatcher({ buildId }: { buildId: string | null }) {
  const { t } = useTranslation();
  useEffect(() => {
    if (!buildId) return;
    let announced = false;
    async function check() {
      if (announced) return;
      try {
        const response = await fetch(`/builds/latest.json?t=${Date.now()}`, { cache: "no-store" });
        if (!response.ok) return;
        const latest = (await response.json()) as { id?: string };
        if (latest.id && latest.id !== buildId) {
          announced = true;
          toast({
            id: "new-version",
            type: "info",
            title: t("newVersion.title"),
            description: t("newVersion.description"),
            action: { label: t("newVersion.reload"), onClick: () => window.location.reload() },
          });
        }
      } catch {
        // Offline or mid-deploy: the next poll tries again.
      }
    }
    const timer = setInterval(check, HOUR);
    const onVisible = () => document.visibilityState === "visible" && void check();
    window.addEventListener("focus", check);
    document.addEventListener("visibilitychange", onVisible);
    return () => {
      clearInterval(timer);
      window.removeEventListener("focus", check);
      document.removeEventListener("visibilitychange", onVisible);
    };
  }, [buildId, t]);
  return null;
}
