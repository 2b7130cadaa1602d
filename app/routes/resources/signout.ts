import { z } from "zod";
import { isLocale, localizePath } from "~/i18n/config";
import { endSession } from "~/server/auth/session.server";
import { i18nFor } from "~/server/i18n.server";
import { pageAction } from "~/server/page-action.server";
import { redirectWithToast } from "~/server/toast.server";

/** The user menu's sign-out form: ends the session, clears the cookie, goes home. */
export const action = pageAction({
  auth: "optional",
  intents: (intent) => ({
    "sign-out": intent({
      // Any post signs out; an unknown `locale` means English.
      schema: z.object({}),
      rateLimit: "/sign-out",
      async run({ args, formData }) {
        const lng = formData.get("locale");
        const locale = isLocale(lng) ? lng : "en";
        const headers = new Headers();
        for (const cookie of await endSession(args.request)) headers.append("Set-Cookie", cookie);
        const { t } = i18nFor(locale);
        return redirectWithToast(
          localizePath("/", locale),
          { type: "success", title: t("toast.signedOut") },
          { headers },
        );
      },
    }),
  }),
});

export function loader() {
  return new Response(null, { status: 405, headers: { Allow: "POST" } });
}
