import { useNavigation } from "react-router";

/**
 * True while a page submission carrying `intent=<intent>` is on its way (submitting, or
 * loading the page it redirected to). Without JavaScript there is no pending state: the
 * browser's own page load shows progress.
 */
export function usePendingIntent(intent: string): boolean {
  const navigation = useNavigation();
  return navigation.state !== "idle" && navigation.formData?.get("intent") === intent;
}
