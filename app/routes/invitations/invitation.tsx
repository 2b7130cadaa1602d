import { Form } from "react-router";
import { z } from "zod";
import type { Route } from "./+types/invitation";
import { AppLink } from "~/components/AppLink";
import { AuthCard, Notice } from "~/components/ui/AuthCard";
import { buttonClass, SubmitButton } from "~/components/ui/Button";
import { usePendingIntent } from "~/components/ui/pending";
import { localizePath } from "~/i18n/config";
import { withRedirect } from "~/lib/safe-redirect";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { getAuthSession } from "~/server/auth/guards.server";
import { isAppError } from "~/server/errors.server";
import { authT, cookieHeaders } from "~/server/forms.server";
import { acceptInvitation, getInvitation, rejectInvitation } from "~/server/organization/invitations.server";
import { organizationById, organizationT } from "~/server/organization/pages.server";
import { pageAction, type PageContext } from "~/server/page-action.server";
import { redirectWithToast } from "~/server/toast.server";

export const handle = { i18n: ["organization"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/**
 * The invitation email's link. Its recipient, signed in, sees the organization, the inviter
 * and the role, and accepts or declines. Anyone else signs in or up first and comes back
 * here (details are for the recipient alone, once their address is verified).
 */
export async function loader({ params, context }: Route.LoaderArgs) {
  const t = organizationT(context);
  const title = t("invitation.title");
  const auth = getAuthSession(context);
  if (!auth) return { title, state: "signed-out" as const };
  try {
    const invitation = await getInvitation(auth, params.id);
    return {
      title,
      state: "open" as const,
      invitation: {
        organizationName: invitation.organizationName,
        inviterName: invitation.inviterName || invitation.inviterEmail,
        inviterEmail: invitation.inviterEmail,
        roles: invitation.role.split(",").map((role) => t(`roles.${role}`, { defaultValue: role })),
        expiresAt: invitation.expiresAt.toISOString(),
      },
    };
  } catch (error) {
    if (!isAppError(error)) throw error;
    const state =
      error.code === "YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION"
        ? "other-recipient"
        : error.code === "EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION"
          ? "unverified"
          : "closed";
    return { title, state: state as "other-recipient" | "unverified" | "closed", email: auth.user.email };
  }
}

export const meta: Route.MetaFunction = ({ data, location, matches }) => seo({ title: data?.title, location, matches });

/** The invitation's answers need a session; a visitor without one is told so on the invitation. */
async function prepare({ args: { params, context }, auth, locale }: PageContext<"optional">) {
  if (auth) return auth;
  const here = localizePath(`/invitations/${params.id}`, locale);
  throw await redirectWithToast(here, { type: "error", title: authT(context)("errors.UNAUTHORIZED") });
}

/**
 * Decline is the form a post without an intent stands for, as before. A refusal is a toast on the invitation: the page has no field to put it next to.
 */
export const action = pageAction({
  auth: "optional",
  prepare,
  intents: (intent) => ({
    decline: intent({
      schema: z.object({}),
      rateLimit: "/organization/reject-invitation",
      refusal: "toast",
      async run({ args: { params, context }, meta, locale, page: auth }) {
        await rejectInvitation(auth, params.id!, meta);
        return redirectWithToast(localizePath("/organizations", locale), {
          type: "success",
          title: organizationT(context)("invitation.declined"),
        });
      },
    }),
    accept: intent({
      schema: z.object({}),
      rateLimit: "/organization/accept-invitation",
      refusal: "toast",
      async run({ args: { params, context }, meta, locale, page: auth }) {
        const { invitation, setCookies } = await acceptInvitation(auth, params.id!, meta);
        const organization = await organizationById(invitation.organizationId);
        return redirectWithToast(
          localizePath(`/organizations/${organization.slug}`, locale),
          { type: "success", title: organizationT(context)("invitation.joined", { name: organization.name }) },
          { headers: cookieHeaders(setCookies) },
        );
      },
    }),
  }),
});

export default function Invitation({ loaderData, params }: Route.ComponentProps) {
  const { t } = useTranslation("organization");
  const localize = useLocalize();
  const here = localize(`/invitations/${params.id}`);
  return (
    <AuthCard title={loaderData.title}>
      {loaderData.state === "open" ? (
        <div className="flex flex-col gap-5" data-testid="invitation">
          <div className="flex flex-col gap-1 text-sm">
            <p data-testid="invitation-inviter">
              {t("invitation.body", {
                name: loaderData.invitation.inviterName,
                email: loaderData.invitation.inviterEmail,
                organization: loaderData.invitation.organizationName,
              })}
            </p>
            <p className="text-slate-600 dark:text-slate-400">
              {t("invitation.role", { role: loaderData.invitation.roles.join(", ") })}
            </p>
          </div>
          {/* The buttons wrap as a group on a narrow screen; a label never breaks inside. */}
          <div className="flex flex-wrap gap-3" data-testid="invitation-answers">
            <AnswerButton intent="accept" label={t("invitation.accept")} primary />
            <AnswerButton intent="decline" label={t("invitation.decline")} />
          </div>
        </div>
      ) : loaderData.state === "signed-out" ? (
        <div className="flex flex-col gap-4">
          <p className="text-sm">{t("invitation.signedOutBody")}</p>
          <AppLink to={withRedirect(localize("/signin"), here)} className={buttonClass("primary", "w-full")}>
            {t("invitation.signIn")}
          </AppLink>
          {/* The sign-up page fixes its email to the invitation's address (it reads it by the id). */}
          <AppLink
            to={`${localize("/signup")}?${new URLSearchParams({ invitation: params.id, redirect: here })}`}
            className={buttonClass("secondary", "w-full")}
          >
            {t("invitation.signUp")}
          </AppLink>
        </div>
      ) : loaderData.state === "other-recipient" ? (
        <Notice tone="error" title={t("invitation.otherRecipientTitle")} testId="invitation-other-recipient">
          {t("invitation.otherRecipientBody", { email: loaderData.email })}
        </Notice>
      ) : loaderData.state === "unverified" ? (
        <Notice tone="error" title={t("invitation.unverifiedTitle")} testId="invitation-unverified">
          {t("invitation.unverifiedBody", { email: loaderData.email })}
        </Notice>
      ) : (
        <Notice tone="info" title={t("invitation.closedTitle")} testId="invitation-closed">
          {t("invitation.closedBody")}
        </Notice>
      )}
    </AuthCard>
  );
}

function AnswerButton({ intent, label, primary = false }: { intent: string; label: string; primary?: boolean }) {
  const pending = usePendingIntent(intent);
  return (
    <Form method="post" className="flex-1 basis-auto">
      <input type="hidden" name="intent" value={intent} />
      <SubmitButton variant={primary ? "primary" : "secondary"} pending={pending} className="w-full whitespace-nowrap">
        {label}
      </SubmitButton>
    </Form>
  );
}
