import { data } from "react-router";
import type { Route } from "./+types/passkeys";
import { localizePath } from "~/i18n/config";
import { getAuthSession, localizedRedirect, requireUser } from "~/server/auth/guards.server";
import { deletePasskey, deletePasskeyInput, updatePasskey, updatePasskeyInput } from "~/server/auth/passkeys.server";
import { enforceRateLimit } from "~/server/auth/rate-limit.server";
import { requestMeta } from "~/server/auth/session.server";
import { authT, errorTitle } from "~/server/forms.server";
import { getLocale } from "~/server/i18n.server";
import { redirectWithToast } from "~/server/toast.server";

/**
 * The profile's passkey forms (PasskeysSection): rename and delete, plain posts that work
 * without JavaScript. Every answer goes back to the profile's passkeys with a toast; the
 * section has no field to show an error next to.
 */
export async function action({ request, context }: Route.ActionArgs) {
  requireUser(context); // the menu layout's middleware has already made sure
  const auth = getAuthSession(context)!;
  const t = authT(context);
  const meta = requestMeta(request, context);
  const back = `${localizePath("/profile", getLocale(context))}#passkeys`;
  const form = Object.fromEntries(await request.formData());
  try {
    if (form.intent === "rename") {
      const input = updatePasskeyInput.safeParse(form);
      if (!input.success) return redirectWithToast(back, { type: "error", title: t("passkeys.nameRequired") });
      await enforceRateLimit(meta.ipAddress, "/passkey/update-passkey");
      await updatePasskey(auth, input.data, meta);
      return redirectWithToast(back, { type: "success", title: t("passkeys.renamed") });
    }
    const input = deletePasskeyInput.safeParse(form);
    if (form.intent !== "delete" || !input.success) throw data("Unknown intent", { status: 400 });
    await enforceRateLimit(meta.ipAddress, "/passkey/delete-passkey");
    await deletePasskey(auth, input.data, meta);
    return redirectWithToast(back, { type: "success", title: t("passkeys.deleted") });
  } catch (error) {
    // errorTitle rethrows anything that is not a service's refusal.
    return redirectWithToast(back, { type: "error", title: errorTitle(t, error) });
  }
}

/** Nothing to show here: the passkeys are on the profile. */
export function loader({ url }: Route.LoaderArgs) {
  return localizedRedirect(url, "/profile#passkeys");
}
