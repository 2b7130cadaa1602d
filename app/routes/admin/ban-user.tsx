import { useActionData, useLocation } from "react-router";
import type { Route } from "./+types/ban-user";
import { ConfirmForm, DialogText } from "~/components/ui/ConfirmDialog";
import { banSchema } from "~/lib/admin-forms";
import { BAN_DURATIONS } from "~/lib/form-limits";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { adminOf, adminT, userOfDialog, userOfPage } from "~/server/admin/pages.server";
import { banUser } from "~/server/admin/users.server";
import { pageAction } from "~/server/page-action.server";
import { redirectWithToast } from "~/server/toast.server";
import { usePageForm } from "~/components/ui/section-form";

export const handle = { i18n: ["admin", "auth"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export async function loader({ url, params, context }: Route.LoaderArgs) {
  const user = await userOfPage(adminOf(context), url, params.userId);
  return { title: adminT(context)("ban.title", { name: user.name }), email: user.email };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) => seo({ title: data?.title, location, matches });

const DAY = 86_400;

/** Bans (permanently or for some days): the user's open sessions end at once. */
export const action = pageAction({
  auth: "required",
  prepare: userOfDialog,
  intents: (intent) => ({
    "ban-user": intent({
      schema: banSchema,
      rateLimit: "/admin/ban-user",
      async run({ args, auth, meta, page: user, value: { reason, duration } }) {
        await banUser(
          auth,
          {
            userId: user.id,
            banReason: reason,
            banExpiresIn: duration === "permanent" ? undefined : Number(duration) * DAY,
          },
          meta,
        );
        const { pathname, search } = args.url;
        return redirectWithToast(pathname.replace(/\/[^/]+\/ban$/, "") + search, {
          type: "success",
          title: adminT(args.context)("ban.done", { name: user.name }),
        });
      },
    }),
  }),
});

export default function BanUser({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("admin");
  const back = useLocalize()(`/admin/users${useLocation().search}`);
  const actionData = useActionData<typeof action>();
  const [form] = usePageForm(null, { lastResult: actionData?.result });
  const input = "rounded-md border border-slate-300 bg-white px-3 py-2 dark:border-slate-700 dark:bg-slate-900";
  return (
    <ConfirmForm
      title={loaderData.title}
      closeTo={back}
      form={form}
      intent="ban-user"
      body={<DialogText>{t("ban.body", { email: loaderData.email })}</DialogText>}
      cancelLabel={t("cancel")}
      submitLabel={t("ban.submit")}
    >
      <label className="flex flex-col gap-1 text-sm font-medium">
        {t("ban.reason")}
        <input name="reason" maxLength={1000} className={input} />
      </label>
      <label className="flex flex-col gap-1 text-sm font-medium">
        {t("ban.duration")}
        <select name="duration" defaultValue="permanent" className={input}>
          {BAN_DURATIONS.map((duration) => (
            <option key={duration} value={duration}>
              {t(`ban.durations.${duration}`)}
            </option>
          ))}
        </select>
      </label>
    </ConfirmForm>
  );
}
