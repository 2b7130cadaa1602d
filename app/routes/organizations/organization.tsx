import { getFormProps, getSelectProps } from "@conform-to/react";
import { Outlet, useLocation } from "react-router";
import type { z } from "zod";
import type { Route } from "./+types/organization";
import { AppLink } from "~/components/AppLink";
import { RoleBadge, useRoleText } from "~/components/RoleBadge";
import { buttonClass, SubmitButton } from "~/components/ui/Button";
import { Field, TextareaField } from "~/components/ui/Field";
import { FieldErrors, FormErrors } from "~/components/ui/FormErrors";
import { inputClass } from "~/components/ui/Input";
import { LocalTime } from "~/components/ui/LocalTime";
import { Pagination } from "~/components/ui/Pagination";
import { Section } from "~/components/ui/Section";
import { useRowForm, useSectionForm } from "~/components/ui/section-form";
import { Table } from "~/components/ui/Table";
import { localizePath } from "~/i18n/config";
import {
  createTeamSchema,
  invitationActionSchema,
  inviteMemberSchema,
  membersPath,
  membersViewSchema,
  SLUG_MAX,
  updateMemberRoleSchema,
  updateOrganizationSchema,
} from "~/lib/organization-forms";
import { numberFormat } from "~/lib/intl";
import { searchParamsOf } from "~/lib/reports";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocale, useLocalize } from "~/lib/use-root-data";
import { requireAuthSession } from "~/server/auth/guards.server";
import { loadEnv } from "~/server/env.server";
import { updateMemberRole, updateOrganization } from "~/server/organization/organizations.server";
import { cancelInvitation, inviteMember } from "~/server/organization/invitations.server";
import {
  invitationsOfPage,
  memberOfPage,
  membersOfPage,
  organizationOfPage,
  organizationT,
  pendingInvitationOfPage,
  teamsOfPage,
} from "~/server/organization/pages.server";
import { createTeam } from "~/server/organization/teams.server";
import { assignableRoles, can, grantsOf, mayActOnMember } from "~/server/organization/permissions.server";
import { pageAction, type IntentContext, type IntentOf } from "~/server/page-action.server";
import { pageMeta } from "~/server/page-meta.server";
import { redirectWithToast } from "~/server/toast.server";

export const handle = { i18n: ["auth", "organization"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/** The page of members the URL asks for (`?page=`). */
const pageOf = (url: URL) => membersViewSchema.parse(searchParamsOf(url)).page;

/**
 * The page shows what the caller's role allows: its grants, the roles it may give and, per
 * member, the member-over-member rule (permissions.server.ts); the services check again on
 * every post. Members are listed a page at a time.
 */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  const auth = requireAuthSession(context);
  const { organization, caller } = await organizationOfPage(url, auth, params.slug);
  const role = caller.role;
  const invitationsShown = can(role, "invitation", ["create"]) || can(role, "invitation", ["cancel"]);
  const [{ members, total, page, pages }, invitations, teams] = await Promise.all([
    membersOfPage(organization.id, pageOf(url)),
    invitationsShown ? invitationsOfPage(auth, organization.id) : [],
    teamsOfPage(organization.id),
  ]);
  return {
    meta: { ...pageMeta(context, "organization"), title: organization.name },
    organization: {
      name: organization.name,
      slug: organization.slug,
      logo: organization.logo,
      metadata: organization.metadata ? JSON.stringify(organization.metadata, null, 2) : "",
    },
    role,
    active: auth.session.activeOrganizationId === organization.id,
    grants: grantsOf(role),
    // Whether organizations may be deleted at all; the grants say by whom.
    deletion: loadEnv().ORGANIZATION_DELETION,
    assignableRoles: assignableRoles(role),
    members: members.map((member) => {
      const self = member.userId === auth.user.id;
      return {
        id: member.id,
        name: member.user.name,
        email: member.user.email,
        role: member.role,
        self,
        editable: mayActOnMember(role, "update", member.role),
        // One's own membership ends by leaving, below.
        removable: !self && mayActOnMember(role, "delete", member.role),
      };
    }),
    membersPage: { total, page, pages },
    invitations,
    teams,
  };
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

/** What each form's verb gets: the signed-in caller, the organization of the URL, the form. */

type Page = Awaited<ReturnType<typeof organizationOfPage>>;
type Ctx<S extends z.ZodType> = IntentContext<"required", Page, z.output<S>>;

/** Back to the page of members the form was on, with a toast (replacing the history entry). */
function done({ args, locale, page }: Ctx<z.ZodType>, title: string, slug = page.organization.slug) {
  return redirectWithToast(
    membersPath(localizePath(`/organizations/${slug}`, locale), pageOf(args.url)),
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

/**
 * The settings form, the members' role forms, the invitation forms and the new team form;
 * `intent` tells them apart. A success redirects (replacing the history entry) with a toast,
 * so every loader runs again; a failure answers the form it came from, told apart by `key`.
 */
export const action = pageAction({
  auth: "required",
  prepare: ({ args: { url, params }, auth }) => organizationOfPage(url, auth, params.slug!),
  intents: (intent) => ({
    "update-organization": intent({
      schema: updateOrganizationSchema,
      rateLimit: "/organization/update",
      fields: { ORGANIZATION_SLUG_ALREADY_TAKEN: "slug" },
      extra: () => ({ key: "update-organization" }),
      async run(ctx: Ctx<typeof updateOrganizationSchema>) {
        const { name, slug, logo, metadata } = ctx.value;
        const updated = await updateOrganization(
          ctx.auth,
          // An emptied field clears the logo or the metadata.
          {
            organizationId: ctx.page.organization.id,
            data: { name, slug, logo: logo ?? null, metadata: metadata ?? null },
          },
          ctx.meta,
        );
        return done(ctx, organizationT(ctx.args.context)("settings.saved"), updated.slug);
      },
    }),
    "update-member-role": intent({
      schema: updateMemberRoleSchema,
      rateLimit: "/organization/update-member-role",
      fields: { ROLE_NOT_FOUND: "role" },
      extra: (formData) => ({ key: `update-member-role-${String(formData.get("memberId"))}` }),
      async run(ctx: Ctx<typeof updateMemberRoleSchema>) {
        const { memberId, role } = ctx.value;
        const organizationId = ctx.page.organization.id;
        await updateMemberRole(ctx.auth, { memberId, role, organizationId }, ctx.meta);
        const name = (await memberOfPage(organizationId, { id: memberId }))?.user.name ?? "";
        return done(ctx, organizationT(ctx.args.context)("members.roleSaved", { name }));
      },
    }),
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
    "create-team": intent({
      schema: createTeamSchema,
      rateLimit: "/organization/create-team",
      extra: () => ({ key: "create-team" }),
      async run(ctx: Ctx<typeof createTeamSchema>) {
        const { name } = ctx.value;
        await createTeam(ctx.auth, { name, organizationId: ctx.page.organization.id }, ctx.meta);
        return done(ctx, organizationT(ctx.args.context)("teams.created", { name }));
      },
    }),
  }),
});

// ---------------------------------------------------------------------------------------

type LoaderData = Route.ComponentProps["loaderData"];

export default function Organization({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("organization");
  const localize = useLocalize();
  // After a success the page is reloaded under a new location key: the forms start afresh.
  const { key } = useLocation();
  const { organization, grants } = loaderData;
  const here = localize(`/organizations/${organization.slug}`);
  return (
    <div className="flex max-w-4xl flex-col gap-8">
      <Header data={loaderData} />
      {grants.organization?.includes("update") ? (
        <SettingsSection key={`settings-${key}`} organization={organization} />
      ) : null}
      <MembersSection
        key={`members-${key}`}
        members={loaderData.members}
        membersPage={loaderData.membersPage}
        assignableRoles={loaderData.assignableRoles}
        here={here}
      />
      {grants.invitation?.includes("create") || grants.invitation?.includes("cancel") ? (
        <InvitationsSection key={`invitations-${key}`} data={loaderData} />
      ) : null}
      <TeamsSection key={`teams-${key}`} data={loaderData} here={here} />
      <Section id="leave" title={t("leave.title")} description={t("leave.description")}>
        <AppLink to={`${here}/leave`} preventScrollReset className={buttonClass("secondary")}>
          {t("leave.open")}
        </AppLink>
      </Section>
      {grants.organization?.includes("delete") && loaderData.deletion ? (
        <Section id="danger" tone="danger" title={t("delete.title")} description={t("delete.description")}>
          <AppLink to={`${here}/delete`} preventScrollReset className={buttonClass("dangerOutline")}>
            {t("delete.open")}
          </AppLink>
        </Section>
      ) : null}
      {/* The dialogs (remove a member, a team's members, remove a team, leave, delete) are child routes. */}
      <Outlet />
    </div>
  );
}

function Header({ data }: { data: LoaderData }) {
  const { t } = useTranslation("organization");
  const { organization } = data;
  return (
    <div className="flex items-center gap-4">
      {organization.logo ? (
        <img src={organization.logo} alt="" className="size-14 shrink-0 rounded-lg object-cover" />
      ) : (
        <span className="flex size-14 shrink-0 items-center justify-center rounded-lg bg-primary-700 text-2xl font-semibold text-white">
          {organization.name.slice(0, 1).toUpperCase()}
        </span>
      )}
      <div className="min-w-0">
        <h1 className="truncate text-2xl font-bold tracking-tight">{organization.name}</h1>
        <p className="mt-1 flex flex-wrap items-center gap-2 text-sm text-slate-600 dark:text-slate-400">
          <span data-testid="organization-slug">{organization.slug}</span>
          <RoleBadge role={data.role} />
          {data.active ? (
            <span className="rounded-full bg-primary-100 px-2 py-0.5 text-xs font-medium text-primary-800 dark:bg-primary-900/50 dark:text-primary-200">
              {t("list.active")}
            </span>
          ) : null}
        </p>
      </div>
    </div>
  );
}

function SettingsSection({ organization }: { organization: LoaderData["organization"] }) {
  const { t } = useTranslation("organization");
  const { fetcher, form, fields, pending } = useSectionForm("update-organization", updateOrganizationSchema, {
    name: organization.name,
    slug: organization.slug,
    logo: organization.logo ?? "",
    metadata: organization.metadata,
  });
  return (
    <Section id="settings" title={t("settings.title")} description={t("settings.description")}>
      <fetcher.Form method="post" {...getFormProps(form)} className="flex max-w-xl flex-col gap-4">
        <input type="hidden" name="intent" value="update-organization" />
        <FormErrors id={form.errorId} errors={form.errors} />
        <Field field={fields.name} type="text" label={t("form.name")} inputProps={{ autoComplete: "organization" }} />
        <Field
          field={fields.slug}
          type="text"
          label={t("form.slug")}
          hint={t("settings.slugHint")}
          inputProps={{ autoComplete: "off", spellCheck: false, maxLength: SLUG_MAX }}
        />
        <Field
          field={fields.logo}
          type="url"
          label={t("settings.logo")}
          inputProps={{ placeholder: "https://", autoComplete: "off" }}
        />
        <TextareaField
          field={fields.metadata}
          label={t("settings.metadata")}
          hint={t("settings.metadataHint")}
          textareaProps={{ rows: 4, spellCheck: false, className: `${inputClass} font-mono` }}
        />
        <div>
          <SubmitButton pending={pending} pendingLabel={t("settings.pending")}>
            {t("settings.submit")}
          </SubmitButton>
        </div>
      </fetcher.Form>
    </Section>
  );
}

function MembersSection({
  members,
  membersPage: { total, page, pages },
  assignableRoles,
  here,
}: {
  members: LoaderData["members"];
  membersPage: LoaderData["membersPage"];
  assignableRoles: LoaderData["assignableRoles"];
  here: string;
}) {
  const { t } = useTranslation("organization");
  const locale = useLocale();
  // A dialog opened from this page of members comes back to it.
  const onPage = membersPath("", page);
  return (
    <Section id="members" title={t("members.title")} description={t("members.description")}>
      <p className="mb-2 text-sm text-slate-600 dark:text-slate-400" data-testid="members-total">
        {t("members.total", { count: total, formatted: numberFormat(locale).format(total) })}
        {pages > 1 ? ` · ${t("members.page", { page, pages })}` : null}
      </p>
      <Table
        data-testid="member-list"
        head={
          <>
            <th scope="col" className="py-2 pr-4 font-medium">
              {t("members.name")}
            </th>
            <th scope="col" className="py-2 pr-4 font-medium">
              {t("members.email")}
            </th>
            <th scope="col" className="py-2 pr-4 font-medium">
              {t("members.role")}
            </th>
            <th scope="col" className="py-2">
              <span className="sr-only">{t("members.actions")}</span>
            </th>
          </>
        }
      >
        {members.map((member) => (
          <tr key={member.id} data-member={member.email}>
            <td className="py-3 pr-4 font-medium">
              {member.name}
              {member.self ? (
                <span className="ml-2 text-xs font-normal text-slate-600 dark:text-slate-400">{t("members.you")}</span>
              ) : null}
            </td>
            <td className="py-3 pr-4 text-slate-600 dark:text-slate-400">{member.email}</td>
            <td className="py-3 pr-4">
              {member.editable ? (
                <RoleForm member={member} roles={assignableRoles} />
              ) : (
                <RoleBadge role={member.role} />
              )}
            </td>
            <td className="py-3 text-right">
              {member.removable ? (
                <AppLink
                  to={`${here}/members/${member.id}/remove${onPage}`}
                  preventScrollReset
                  aria-label={t("members.removeLabel", { name: member.name })}
                  className={buttonClass("ghost", "px-3 py-1.5")}
                >
                  {t("members.remove")}
                </AppLink>
              ) : null}
            </td>
          </tr>
        ))}
      </Table>
      <Pagination
        page={page}
        pages={pages}
        href={(n) => `${membersPath(here, n)}#members-title`}
        label={t("members.pagination")}
        className="mt-4"
      />
    </Section>
  );
}

function RoleForm({ member, roles }: { member: LoaderData["members"][number]; roles: readonly string[] }) {
  const { t } = useTranslation("organization");
  const roleText = useRoleText();
  const { fetcher, errors, pending } = useRowForm(`update-member-role-${member.id}`);
  const id = `role-${member.id}`;
  // A combined role ("admin,member") is offered as it is, besides the single ones.
  const options = roles.includes(member.role) ? roles : [member.role, ...roles];
  return (
    <fetcher.Form method="post" className="flex flex-col gap-1">
      <input type="hidden" name="intent" value="update-member-role" />
      <input type="hidden" name="memberId" value={member.id} />
      <div className="flex items-center gap-2">
        <label htmlFor={id} className="sr-only">
          {t("members.roleLabel", { name: member.name })}
        </label>
        <select
          id={id}
          name="role"
          defaultValue={member.role}
          aria-invalid={errors.length ? true : undefined}
          aria-describedby={errors.length ? `${id}-errors` : undefined}
          className={`${inputClass} w-auto py-1.5`}
        >
          {options.map((role) => (
            <option key={role} value={role}>
              {roleText(role)}
            </option>
          ))}
        </select>
        <SubmitButton
          variant="secondary"
          className="px-3 py-1.5"
          pending={pending}
          aria-label={t("members.saveLabel", { name: member.name })}
        >
          {t("members.save")}
        </SubmitButton>
      </div>
      <FormErrors id={`${id}-errors`} errors={errors} />
    </fetcher.Form>
  );
}

function InvitationsSection({ data }: { data: LoaderData }) {
  const { t } = useTranslation("organization");
  const mayInvite = data.grants.invitation?.includes("create") ?? false;
  const mayCancel = data.grants.invitation?.includes("cancel") ?? false;
  return (
    <Section id="invitations" title={t("invitations.title")} description={t("invitations.description")}>
      <div className="flex flex-col gap-6">
        {mayInvite ? <InviteForm roles={data.assignableRoles} teams={data.teams} /> : null}
        {data.invitations.length ? (
          <ul className="divide-y divide-slate-200 dark:divide-slate-800" data-testid="invitation-list">
            {data.invitations.map((invitation) => (
              <InvitationRow key={invitation.id} invitation={invitation} mayResend={mayInvite} mayCancel={mayCancel} />
            ))}
          </ul>
        ) : (
          <p className="text-sm text-slate-600 dark:text-slate-400">{t("invitations.empty")}</p>
        )}
      </div>
    </Section>
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
          <div className="flex flex-col gap-1">
            <label htmlFor={fields.teamId.id} className={labelClass}>
              {t("invitations.team")}
            </label>
            <select key={teamKey} {...teamProps} className={selectClass}>
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
        <SubmitButton pending={pending} pendingLabel={t("invitations.pending")}>
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
  invitation: LoaderData["invitations"][number];
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
        <fetcher.Form method="post" {...getFormProps(form)} className="flex items-center gap-2">
          <input type="hidden" name="invitationId" value={invitation.id} />
          {mayResend ? (
            <SubmitButton
              name="intent"
              value="resend-invitation"
              variant="secondary"
              className="px-3 py-1.5"
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
              className="px-3 py-1.5"
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

function TeamsSection({ data, here }: { data: LoaderData; here: string }) {
  const { t } = useTranslation("organization");
  return (
    <Section id="teams" title={t("teams.title")} description={t("teams.description")}>
      <div className="flex flex-col gap-6">
        {data.teams.length ? (
          <ul className="divide-y divide-slate-200 dark:divide-slate-800" data-testid="team-list">
            {data.teams.map((team) => (
              <li key={team.id} data-team={team.name} className="flex flex-wrap items-center gap-4 py-3 text-sm">
                <div className="min-w-0 flex-1">
                  <p className="truncate font-medium">{team.name}</p>
                  <p className="text-slate-600 dark:text-slate-400">
                    {t("teams.memberCount", { count: team.memberCount })}
                  </p>
                </div>
                <AppLink
                  to={`${here}/teams/${team.id}`}
                  preventScrollReset
                  aria-label={t("teams.openLabel", { name: team.name })}
                  className={buttonClass("secondary", "px-3 py-1.5")}
                >
                  {t("teams.open")}
                </AppLink>
                {data.grants.team?.includes("delete") ? (
                  <AppLink
                    to={`${here}/teams/${team.id}/remove`}
                    preventScrollReset
                    aria-label={t("teams.removeLabel", { name: team.name })}
                    className={buttonClass("ghost", "px-3 py-1.5")}
                  >
                    {t("teams.remove")}
                  </AppLink>
                ) : null}
              </li>
            ))}
          </ul>
        ) : (
          <p className="text-sm text-slate-600 dark:text-slate-400">{t("teams.empty")}</p>
        )}
        {data.grants.team?.includes("create") ? <CreateTeamForm /> : null}
      </div>
    </Section>
  );
}

function CreateTeamForm() {
  const { t } = useTranslation("organization");
  const { fetcher, form, fields, pending } = useSectionForm("create-team", createTeamSchema);
  return (
    <fetcher.Form method="post" {...getFormProps(form)} className="flex max-w-xl flex-col gap-4">
      <input type="hidden" name="intent" value="create-team" />
      <FormErrors id={form.errorId} errors={form.errors} />
      <Field field={fields.name} type="text" label={t("teams.name")} inputProps={{ autoComplete: "off" }} />
      <div>
        <SubmitButton pending={pending} pendingLabel={t("teams.createPending")}>
          {t("teams.create")}
        </SubmitButton>
      </div>
    </fetcher.Form>
  );
}
