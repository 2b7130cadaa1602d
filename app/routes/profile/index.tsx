import { getFormProps } from "@conform-to/react";
import { useLocation } from "react-router";
import type { Route } from "./+types/index";
import { SettingsPage } from "~/components/settings/SettingsPage";
import { SubmitButton } from "~/components/ui/Button";
import { Field } from "~/components/ui/Field";
import { FormErrors } from "~/components/ui/FormErrors";
import { Section } from "~/components/ui/Section";
import { useSectionForm } from "~/components/ui/section-form";
import { updateProfileSchema } from "~/lib/auth-forms";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { updateUser } from "~/server/auth/account-management.server";
import { requireUser } from "~/server/auth/guards.server";
import { sectionForm, settingsDone, settingsHere } from "~/server/auth/settings.server";
import { authT } from "~/server/forms.server";
import { pageAction } from "~/server/page-action.server";
import { settingsMeta } from "~/server/page-meta.server";

export const handle = { i18n: ["auth"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export function loader({ context }: Route.LoaderArgs) {
  const user = requireUser(context);
  return {
    meta: settingsMeta(context, "profile"),
    user: { name: user.name, email: user.email, image: user.image },
  };
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

export const action = pageAction({
  auth: "required",
  intents: (intent) => ({
    "update-profile": intent({
      ...sectionForm("update-profile"),
      schema: updateProfileSchema,
      rateLimit: "/update-user",
      async run({ args, auth, meta, locale, value: { name, image } }) {
        const result = await updateUser(auth, { name, image: image ?? null }, meta);
        const t = authT(args.context);
        return settingsDone(settingsHere("profile", locale), t("profile.profile.saved"), undefined, result.setCookies);
      },
    }),
  }),
});

export default function ProfileSettings({ loaderData }: Route.ComponentProps) {
  // After a success the page is reloaded under a new location key: the form starts afresh
  // from the new data.
  const { key } = useLocation();
  return (
    <SettingsPage>
      <ProfileSection key={key} user={loaderData.user} />
    </SettingsPage>
  );
}

function ProfileSection({ user }: { user: Route.ComponentProps["loaderData"]["user"] }) {
  const { t } = useTranslation("auth");
  const { fetcher, form, fields, pending } = useSectionForm(
    "update-profile",
    () => import("~/lib/auth-forms").then((m) => m.updateProfileSchema),
    {
      name: user.name,
      image: user.image ?? "",
    },
  );
  const initial = (user.name || user.email).slice(0, 1).toUpperCase();
  return (
    <Section id="profile" title={t("profile.profile.title")} description={t("profile.profile.description")}>
      <div className="flex flex-col gap-6 sm:flex-row">
        {user.image ? (
          <img src={user.image} alt="" className="size-16 shrink-0 rounded-full object-cover" />
        ) : (
          <span className="flex size-16 shrink-0 items-center justify-center rounded-full bg-primary-700 text-2xl font-semibold text-white">
            {initial}
          </span>
        )}
        <fetcher.Form method="post" {...getFormProps(form)} className="flex min-w-0 flex-1 flex-col gap-4">
          <input type="hidden" name="intent" value={"update-profile" satisfies (typeof action.intents)[number]} />
          <FormErrors id={form.errorId} errors={form.errors} />
          <Field
            field={fields.name}
            type="text"
            label={t("profile.profile.name")}
            inputProps={{ autoComplete: "name" }}
          />
          <Field
            field={fields.image}
            type="url"
            label={t("profile.profile.image")}
            hint={t("profile.profile.imageHint")}
            inputProps={{ autoComplete: "photo", placeholder: "https://" }}
          />
          <div>
            <SubmitButton pending={pending} pendingLabel={t("profile.profile.pending")}>
              {t("profile.profile.submit")}
            </SubmitButton>
          </div>
        </fetcher.Form>
      </div>
    </Section>
  );
}
