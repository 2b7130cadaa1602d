import { getFormProps, getSelectProps } from "@conform-to/react";
import { useLocation } from "react-router";
import type { z } from "zod";
import type { Route } from "./+types/invitations";
import { Icon } from "~/components/Icon";
import { RoleBadge, useRoleText } from "~/components/RoleBadge";
import { SubmitButton } from "~/components/ui/Button";
import { Field } from "~/components/ui/Field";
import { FieldErrors, FormErrors } from "~/components/ui/FormErrors";
import { inputClass } from "~/components/ui/Input";
import { LocalTime } from "~/components/ui/LocalTime";
import { Section } from "~/components/ui/Section";
import { useSectionForm } from "~/components/ui/section-form";
import { localizePath } from "~/i18n/config";
import { invitationActionSchema, inviteMemberSchema, organizationPath } from "~/lib/organization-forms";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocale } from "~/lib/use-root-data";
import { requireAuthSession } from "~/server/auth/guards.server";
import { notFound } from "~/server/i18n.server";
import { cancelInvitation, inviteMember } from "~/server/organization/invitations.server";
import {
  invitationsOfPage,
  organizationOfPage,
  organizationT,
  pendingInvitationOfPage,
  teamsOfPage,
} from "~/server/organization/pages.server";
import { assignableRoles, can, grantsOf } from "~/server/organization/permissions.server";
import { pageAction, type IntentContext, type IntentOf } from "~/server/page-action.server";
import { pageMeta } from "~/server/page-meta.server";
import { redirectWithToast } from "~/server/toast.server";

export const handle = { i18n: ["auth", "organization"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/**
 * The invite form and the invitations, for the roles that send or withdraw them (the others
 * have no such tab, and find nothing here): the open ones first, to resend or cancel, then
 * the latest of the history (answered, withdrawn, expired), folded away.
 */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  const auth = requireAuthSession(context);
  const { organization, caller } = await organizationOfPage(url, auth, params.slug);
  if (!can(caller, "invitation", ["create"]) && !can(caller, "invitation", ["cancel"])) notFound(url.pathname);
  const [invitations, teams] = await Promise.all([
    invitationsOfPage(auth, organization.id),
    teamsOfPage(organization.id),
  ]);
  return {
    meta: pageMeta(context, "organizationInvitations", { name: organization.name }),
    grants: grantsOf(caller),
    assignableRoles: assignableRoles(caller),
    teams: teams.map(({ id, name }) => ({ id, name })),
    ...invitations,
  };
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

type Page = Awaited<ReturnType<typeof organizationOfPage>>;
type Ctx<S extends z.ZodType> = IntentContext<"required", Page, z.output<S>>;

/** Back to this section with a toast (replacing the history entry). */
function done({ locale, page }: Ctx<z.ZodType>, title: string) {
  return redirectWithToast(
    localizePath(organizationPath(page.organization.slug, "invitations"), locale),
    { type: "success", title },
    { headers: { "X-Remix-Replace": "true" } },
  );
}

/** Resend and Cancel, the buttons of an invitation's row: its refusals show on that row. */
function invitationIntent(intent: IntentOf<"required", Page>, name: "resend-invitation" | "cancel-invitation") {
  return intent({
    schema: invitationActionSchema,
    rateLimit: `/organization/${name}`,
    extra: (formData) => ({ key: `invitation-${String(formData.get("invitationId"))}` }),
    async run(ctx: Ctx<typeof invitationActionSchema>) {
      const { auth, meta, page } = ctx;
      const organizationId = page.organization.id;
      const invitation = await pendingInvitationOfPage(auth, organizationId, ctx.value.invitationId);
      const { email } = invitation;
      const resend = name === "resend-invitation";
      if (resend) {
        await inviteMember(auth, { email, role: invitation.role, organizationId, resend }, meta);
      } else {
        await cancelInvitation(auth, invitation.id, meta);
      }
      return done(
        ctx,
        organizationT(ctx.args.context)(resend ? "invitations.resent" : "invitations.canceled", { email }),
      );
    },
  });
}

/** The invite form and each open invitation's Resend and Cancel; a refusal answers its own form (`key`). */
export const action = pageAction({
  auth: "required",
  prepare: ({ args: { url, params }, auth }) => organizationOfPage(url, auth, params.slug!),
  intents: (intent) => ({
    "invite-member": intent({
      schema: inviteMemberSchema,
      rateLimit: "/organization/invite-member",
      // The refusals that are about one field of the form.
      fields: {
        USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION: "email",
        USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION: "email",
        YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE: "role",
        TEAM_NOT_FOUND: "teamId",
        TEAM_MEMBER_LIMIT_REACHED: "teamId",
      },
      extra: () => ({ key: "invite-member" }),
      async run(ctx: Ctx<typeof inviteMemberSchema>) {
        const { email, role, teamId } = ctx.value;
        await inviteMember(ctx.auth, { email, role, teamId, organizationId: ctx.page.organization.id }, ctx.meta);
        return done(ctx, organizationT(ctx.args.context)("invitations.sent", { email }));
      },
    }),
    "resend-invitation": invitationIntent(intent, "resend-invitation"),
    "cancel-invitation": invitationIntent(intent, "cancel-invitation"),
  }),
});

type LoaderData = Route.ComponentProps["loaderData"];

export default function Invitations({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("organization");
  // After a success the page is reloaded under a new location key: the forms start afresh.
  const { key } = useLocation();
  const mayInvite = loaderData.grants.invitation?.includes("create") ?? false;
  const mayCancel = loaderData.grants.invitation?.includes("cancel") ?? false;
  const { pending, history, historyTotal } = loaderData;
  return (
    <div className="flex flex-col gap-8">
      {mayInvite ? (
        <Section id="invite" title={t("invitations.inviteTitle")} description={t("invitations.description")}>
          <InviteForm key={`invite-${key}`} roles={loaderData.assignableRoles} teams={loaderData.teams} />
        </Section>
      ) : null}
      <Section id="invitations" title={t("invitations.pendingTitle")} description={t("invitations.pendingDescription")}>
        {pending.length ? (
          <ul className="divide-y divide-slate-200 dark:divide-slate-800" data-testid="invitation-list">
            {pending.map((invitation) => (
              <InvitationRow
                key={`${invitation.id}-${key}`}
                invitation={invitation}
                mayResend={mayInvite}
                mayCancel={mayCancel}
              />
            ))}
          </ul>
        ) : (
          <p className="text-sm text-slate-600 dark:text-slate-400">{t("invitations.empty")}</p>
        )}
      </Section>
      {historyTotal ? (
        <details
          className="group rounded-xl border border-slate-200 bg-white p-6 shadow-sm dark:border-slate-800 dark:bg-slate-900/60"
          data-testid="invitation-history"
        >
          <summary className="flex cursor-pointer list-none items-center gap-2 text-lg font-semibold">
            <Icon name="chevron-down" className="size-4 shrink-0 -rotate-90 transition-transform group-open:rotate-0" />
            {t("invitations.historyTitle", { count: historyTotal })}
          </summary>
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
            {historyTotal > history.length
              ? t("invitations.historyLatest", { count: history.length })
              : t("invitations.historyDescription")}
          </p>
          <ul className="mt-4 divide-y divide-slate-200 dark:divide-slate-800">
            {history.map((invitation) => (
              <InvitationRow key={invitation.id} invitation={invitation} mayResend={false} mayCancel={false} />
            ))}
          </ul>
        </details>
      ) : null}
    </div>
  );
}

const selectClass = `${inputClass} w-auto`;
const labelClass = "text-sm font-medium";

function InviteForm({ roles, teams }: { roles: readonly string[]; teams: LoaderData["teams"] }) {
  const { t } = useTranslation("organization");
  const roleText = useRoleText();
  const { fetcher, form, fields, pending } = useSectionForm("invite-member", inviteMemberSchema, { role: "member" });
  const { key: roleKey, ...roleProps } = getSelectProps(fields.role, { ariaAttributes: true });
  const { key: teamKey, ...teamProps } = getSelectProps(fields.teamId, { ariaAttributes: true });
  return (
    <fetcher.Form method="post" {...getFormProps(form)} className="flex max-w-xl flex-col gap-4">
      <input type="hidden" name="intent" value="invite-member" />
      <FormErrors id={form.errorId} errors={form.errors} />
      <Field field={fields.email} type="email" label={t("invitations.email")} inputProps={{ autoComplete: "off" }} />
      <div className="flex flex-wrap gap-4">
        <div className="flex flex-col gap-1">
          <label htmlFor={fields.role.id} className={labelClass}>
            {t("invitations.role")}
          </label>
          <select key={roleKey} {...roleProps} className={selectClass}>
            {roles.map((role) => (
              <option key={role} value={role}>
                {roleText(role)}
              </option>
            ))}
          </select>
          <FieldErrors id={fields.role.errorId} errors={fields.role.errors} />
        </div>
        {teams.length ? (
          <div className="flex min-w-0 flex-col gap-1">
            <label htmlFor={fields.teamId.id} className={labelClass}>
              {t("invitations.team")}
            </label>
            <select key={teamKey} {...teamProps} className={`${selectClass} max-w-full`}>
              <option value="">{t("invitations.noTeam")}</option>
              {teams.map((team) => (
                <option key={team.id} value={team.id}>
                  {team.name}
                </option>
              ))}
            </select>
            <FieldErrors id={fields.teamId.errorId} errors={fields.teamId.errors} />
          </div>
        ) : null}
      </div>
      <div>
        <SubmitButton pending={pending} pendingLabel={t("invitations.pending")} className="whitespace-nowrap">
          {t("invitations.submit")}
        </SubmitButton>
      </div>
    </fetcher.Form>
  );
}

function InvitationRow({
  invitation,
  mayResend,
  mayCancel,
}: {
  invitation: LoaderData["pending"][number];
  mayResend: boolean;
  mayCancel: boolean;
}) {
  const { t } = useTranslation("organization");
  const locale = useLocale();
  const { fetcher, form, pending } = useSectionForm(`invitation-${invitation.id}`, invitationActionSchema);
  const open = invitation.status === "pending";
  return (
    <li data-invitation={invitation.email} className="flex flex-wrap items-center gap-x-4 gap-y-2 py-3 text-sm">
      <div className="min-w-0 flex-1">
        <p className="truncate font-medium">{invitation.email}</p>
        <p className="text-slate-600 dark:text-slate-400">
          <span data-status={invitation.status}>{t(`invitations.status.${invitation.status}`)}</span>
          {open ? (
            <>
              {" · "}
              {t("invitations.expires")} <LocalTime iso={invitation.expiresAt} locale={locale} />
            </>
          ) : null}
        </p>
      </div>
      <RoleBadge role={invitation.role} />
      {open && (mayResend || mayCancel) ? (
        <fetcher.Form method="post" {...getFormProps(form)} className="flex shrink-0 items-center gap-2">
          <input type="hidden" name="invitationId" value={invitation.id} />
          {mayResend ? (
            <SubmitButton
              name="intent"
              value="resend-invitation"
              variant="secondary"
              className="px-3 py-1.5 whitespace-nowrap"
              pending={pending && fetcher.formData?.get("intent") === "resend-invitation"}
              aria-label={t("invitations.resendLabel", { email: invitation.email })}
            >
              {t("invitations.resend")}
            </SubmitButton>
          ) : null}
          {mayCancel ? (
            <SubmitButton
              name="intent"
              value="cancel-invitation"
              variant="ghost"
              className="px-3 py-1.5 whitespace-nowrap"
              pending={pending && fetcher.formData?.get("intent") === "cancel-invitation"}
              aria-label={t("invitations.cancelLabel", { email: invitation.email })}
            >
              {t("invitations.cancel")}
            </SubmitButton>
          ) : null}
        </fetcher.Form>
      ) : null}
      {form.errors?.length ? (
        <div className="basis-full">
          <FormErrors id={form.errorId} errors={form.errors} />
        </div>
      ) : null}
    </li>
  );
}
