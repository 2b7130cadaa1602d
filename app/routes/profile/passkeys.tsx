import { data } from "react-router";
import { z } from "zod";
import type { Route } from "./+types/passkeys";
import { localizePath, type Locale } from "~/i18n/config";
import { localizedRedirect } from "~/server/auth/guards.server";
import { deletePasskey, deletePasskeyInput, updatePasskey, updatePasskeyInput } from "~/server/auth/passkeys.server";
import { authT, errorTitle } from "~/server/forms.server";
import { pageAction, type PageContext } from "~/server/page-action.server";
import { redirectWithToast } from "~/server/toast.server";

/**
 * The security settings' passkey forms (PasskeysSection): rename and delete, plain posts that work
 * without JavaScript. Every answer goes back to the passkeys section with a toast; the
 * section has no field to show an error next to. (The rate limit's refusal comes back to this
 * URL, whose loader sends the browser on to the same place.)
 */
const back = (locale: Locale) => `${localizePath("/profile/security", locale)}#passkeys`;

/** The verb, then back with a toast: `done`, or the service's refusal. */
async function answer({ args, locale }: PageContext<"required">, verb: () => Promise<unknown>, done: string) {
  const t = authT(args.context);
  try {
    await verb();
  } catch (error) {
    // errorTitle rethrows anything that is not a service's refusal.
    return redirectWithToast(back(locale), { type: "error", title: errorTitle(t, error) });
  }
  return redirectWithToast(back(locale), { type: "success", title: t(done) });
}

export const action = pageAction({
  auth: "required",
  intents: (intent) => ({
    rename: intent({
      // The forms are read with the service's schemas in `run`: their refusals are not form errors.
      schema: z.object({}),
      rateLimit: "/passkey/update-passkey",
      refusal: "toast",
      async run(ctx) {
        const input = updatePasskeyInput.safeParse(Object.fromEntries(ctx.formData));
        if (!input.success) {
          const title = authT(ctx.args.context)("passkeys.nameRequired");
          return redirectWithToast(back(ctx.locale), { type: "error", title });
        }
        return answer(ctx, () => updatePasskey(ctx.auth, input.data, ctx.meta), "passkeys.renamed");
      },
    }),
    delete: intent({
      schema: z.object({}),
      rateLimit: "/passkey/delete-passkey",
      refusal: "toast",
      async run(ctx) {
        const input = deletePasskeyInput.safeParse(Object.fromEntries(ctx.formData));
        // No passkey named: not a form of the section's (it has no answer to show).
        if (!input.success) throw data("Unknown intent", { status: 400 });
        return answer(ctx, () => deletePasskey(ctx.auth, input.data, ctx.meta), "passkeys.deleted");
      },
    }),
  }),
});

/** Nothing to show here: the passkeys are in the security settings. */
export function loader({ url }: Route.LoaderArgs) {
  return localizedRedirect(url, "/profile/security#passkeys");
}
