import { Form } from "react-router";
import type { Route } from "./+types/invitation";
import { AppLink } from "~/components/AppLink";
import { AuthCard, Notice } from "~/components/ui/AuthCard";
import { buttonClass, SubmitButton } from "~/components/ui/Button";
import { usePendingIntent } from "~/components/ui/pending";
import { localizePath } from "~/i18n/config";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { getAuthSession } from "~/server/auth/guards.server";
import { enforceRateLimit } from "~/server/auth/rate-limit.server";
import { requestMeta } from "~/server/auth/session.server";
import { isAppError } from "~/server/errors.server";
import { authT, cookieHeaders, errorTitle } from "~/server/forms.server";
import { getLocale } from "~/server/i18n.server";
import { acceptInvitation, getInvitation, rejectInvitation } from "~/server/organization/invitations.server";
import { organizationById, organizationT } from "~/server/organization/pages.server";
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

export async function action({ request, params, context }: Route.ActionArgs) {
  const locale = getLocale(context);
  const here = localizePath(`/invitations/${params.id}`, locale);
  const auth = getAuthSession(context);
  if (!auth) return redirectWithToast(here, { type: "error", title: authT(context)("errors.UNAUTHORIZED") });
  const t = organizationT(context);
  const meta = requestMeta(request, context);
  const accept = (await request.formData()).get("intent") === "accept";
  try {
    await enforceRateLimit(
      meta.ipAddress,
      accept ? "/organization/accept-invitation" : "/organization/reject-invitation",
    );
    if (!accept) {
      await rejectInvitation(auth, params.id, meta);
      return redirectWithToast(localizePath("/organizations", locale), {
        type: "success",
        title: t("invitation.declined"),
      });
    }
    const { invitation, setCookies } = await acceptInvitation(auth, params.id, meta);
    const organization = await organizationById(invitation.organizationId);
    return redirectWithToast(
      localizePath(`/organizations/${organization.slug}`, locale),
      { type: "success", title: t("invitation.joined", { name: organization.name }) },
      { headers: cookieHeaders(setCookies) },
    );
  } catch (error) {
    return redirectWithToast(here, { type: "error", title: errorTitle(authT(context), error) });
  }
}

export default function Invitation({ loaderData, params }: Route.ComponentProps) {
  const { t } = useTranslation("organization");
  const localize = useLocalize();
  const back = `?${new URLSearchParams({ redirect: localize(`/invitations/${params.id}`) })}`;
  return (
    <AuthCard title={loaderData.title}>
      {loaderData.state === "open" ? (
        <div className="flex flex-col gap-5" data-testid="invitation">
          <p className="text-sm">
            {t("invitation.body", {
              inviter: loaderData.invitation.inviterEmail,
              organization: loaderData.invitation.organizationName,
              role: loaderData.invitation.roles.join(", "),
            })}
          </p>
          <div className="flex gap-3">
            <AnswerButton intent="accept" label={t("invitation.accept")} primary />
            <AnswerButton intent="decline" label={t("invitation.decline")} />
          </div>
        </div>
      ) : loaderData.state === "signed-out" ? (
        <div className="flex flex-col gap-4">
          <p className="text-sm">{t("invitation.signedOutBody")}</p>
          <AppLink to={localize("/signin") + back} className={buttonClass("primary", "w-full")}>
            {t("invitation.signIn")}
          </AppLink>
          <AppLink to={localize("/signup") + back} className={buttonClass("secondary", "w-full")}>
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
    <Form method="post" className="flex-1">
      <input type="hidden" name="intent" value={intent} />
      <SubmitButton variant={primary ? "primary" : "secondary"} pending={pending} className="w-full">
        {label}
      </SubmitButton>
    </Form>
  );
}
