import { getFormProps } from "@conform-to/react";
import { Form, useLocation } from "react-router";
import type { z } from "zod";
import type { Route } from "./+types/team";
import { buttonClass, SubmitButton } from "~/components/ui/Button";
import { ConfirmDialog } from "~/components/ui/ConfirmDialog";
import { Field } from "~/components/ui/Field";
import { FieldErrors, FormErrors } from "~/components/ui/FormErrors";
import { inputClass } from "~/components/ui/Input";
import { useRowForm, useSectionForm } from "~/components/ui/section-form";
import { AppLink } from "~/components/AppLink";
import { localizePath } from "~/i18n/config";
import { organizationPath, renameTeamSchema, teamMemberSchema, teamViewSchema } from "~/lib/organization-forms";
import { searchParamsOf } from "~/lib/reports";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { memberOfPage, organizationT, teamCandidates, teamOfRequest } from "~/server/organization/pages.server";
import { can, grantsOf } from "~/server/organization/permissions.server";
import { addTeamMember, removeTeamMember, updateTeam } from "~/server/organization/teams.server";
import { pageAction, type IntentContext, type IntentOf } from "~/server/page-action.server";
import { redirectWithToast } from "~/server/toast.server";

export const handle = { i18n: ["auth", "organization"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/** The search for members to add (`?q=`). */
const queryOf = (url: URL) => teamViewSchema.parse(searchParamsOf(url)).q;

/**
 * A team's members, for every member of the organization to see; renaming (team:update),
 * adding (member:update) and taking out (member:delete) show for the roles that may. The
 * people to add are the first few outside the team, or those a search finds: an
 * organization may have thousands.
 */
export async function loader(args: Route.LoaderArgs) {
  const { organization, caller, team } = await teamOfRequest(args);
  const query = queryOf(args.url);
  return {
    team: { id: team.id, name: team.name },
    members: team.members,
    add: can(caller, "member", ["update"]) ? { query, ...(await teamCandidates(organization.id, team, query)) } : null,
    grants: grantsOf(caller),
  };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.team.name, location, matches });

/** What each form's verb gets: the signed-in caller, the organization and the team of the URL, the form. */

type Page = Awaited<ReturnType<typeof teamOfRequest>>;
type Ctx<S extends z.ZodType> = IntentContext<"required", Page, z.output<S>>;

/** Back to the dialog with a toast, with the search it had (to add several people it finds). */
function done({ args, locale, page }: Ctx<z.ZodType>, title: string) {
  const query = queryOf(args.url);
  return redirectWithToast(
    localizePath(`${organizationPath(page.organization.slug, "teams")}/${page.team.id}`, locale) +
      (query ? `?${new URLSearchParams({ q: query })}` : ""),
    { type: "success", title },
    { headers: { "X-Remix-Replace": "true" } },
  );
}

/** Adding a member of the organization to the team, or taking one out (a button on their row). */
function teamMemberIntent(intent: IntentOf<"required", Page>, name: "add-team-member" | "remove-team-member") {
  const add = name === "add-team-member";
  return intent({
    schema: teamMemberSchema,
    rateLimit: `/organization/${name}`,
    fields: add ? { USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION: "userId" } : {},
    extra: (formData) => ({ key: add ? name : `${name}-${String(formData.get("userId"))}` }),
    async run(ctx: Ctx<typeof teamMemberSchema>) {
      const { organization, team } = ctx.page;
      const input = { teamId: team.id, userId: ctx.value.userId, organizationId: organization.id };
      await (add ? addTeamMember(ctx.auth, input, ctx.meta) : removeTeamMember(ctx.auth, input, ctx.meta));
      const member = await memberOfPage(organization.id, { userId: input.userId });
      const title = add ? "teams.memberAdded" : "teams.memberRemoved";
      return done(ctx, organizationT(ctx.args.context)(title, { name: member?.user.name ?? "", team: team.name }));
    },
  });
}

/** Rename, add a member, take one out: back to this dialog with a toast, or the form's errors. */
export const action = pageAction({
  auth: "required",
  prepare: ({ args: { url, params, context } }) =>
    teamOfRequest({ url, context, params: { slug: params.slug!, teamId: params.teamId! } }),
  intents: (intent) => ({
    "rename-team": intent({
      schema: renameTeamSchema,
      rateLimit: "/organization/update-team",
      extra: () => ({ key: "rename-team" }),
      async run(ctx: Ctx<typeof renameTeamSchema>) {
        const { organization, team } = ctx.page;
        const { name } = ctx.value;
        await updateTeam(ctx.auth, { teamId: team.id, data: { name, organizationId: organization.id } }, ctx.meta);
        return done(ctx, organizationT(ctx.args.context)("teams.renamed", { name }));
      },
    }),
    "add-team-member": teamMemberIntent(intent, "add-team-member"),
    "remove-team-member": teamMemberIntent(intent, "remove-team-member"),
  }),
});

type LoaderData = Route.ComponentProps["loaderData"];

export default function Team({ loaderData, params }: Route.ComponentProps) {
  const { t } = useTranslation("organization");
  const back = useLocalize()(organizationPath(params.slug, "teams"));
  // After a success the dialog is reloaded under a new location key: the forms start afresh.
  const { key } = useLocation();
  const { team, members } = loaderData;
  return (
    <ConfirmDialog title={team.name} closeTo={back}>
      <div className="flex flex-col gap-6" data-testid="team">
        {loaderData.grants.team?.includes("update") ? <RenameForm key={`rename-${key}`} name={team.name} /> : null}
        <div>
          <h3 className="text-sm font-medium">{t("teams.members")}</h3>
          {members.length ? (
            <ul className="mt-2 divide-y divide-slate-200 dark:divide-slate-800" data-testid="team-members">
              {members.map((member) => (
                <TeamMemberRow
                  key={member.userId}
                  member={member}
                  removable={loaderData.grants.member?.includes("delete") ?? false}
                />
              ))}
            </ul>
          ) : (
            <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">{t("teams.noMembers")}</p>
          )}
        </div>
        {loaderData.add && (loaderData.add.candidates.length || loaderData.add.query) ? (
          <AddMembers key={`add-${key}`} add={loaderData.add} />
        ) : null}
        <div className="flex justify-end">
          <AppLink to={back} preventScrollReset className={buttonClass("secondary")}>
            {t("teams.close")}
          </AppLink>
        </div>
      </div>
    </ConfirmDialog>
  );
}

function RenameForm({ name }: { name: string }) {
  const { t } = useTranslation("organization");
  const { fetcher, form, fields, pending } = useSectionForm("rename-team", renameTeamSchema, { name });
  return (
    <fetcher.Form method="post" {...getFormProps(form)} className="flex flex-col gap-3">
      <input type="hidden" name="intent" value="rename-team" />
      <FormErrors id={form.errorId} errors={form.errors} />
      <Field field={fields.name} type="text" label={t("teams.name")} inputProps={{ autoComplete: "off" }} />
      <div>
        <SubmitButton variant="secondary" pending={pending} pendingLabel={t("teams.renamePending")}>
          {t("teams.rename")}
        </SubmitButton>
      </div>
    </fetcher.Form>
  );
}

function TeamMemberRow({ member, removable }: { member: LoaderData["members"][number]; removable: boolean }) {
  const { t } = useTranslation("organization");
  const { fetcher, errors, pending } = useRowForm(`remove-team-member-${member.userId}`);
  return (
    <li data-team-member={member.email} className="flex flex-wrap items-center gap-3 py-2 text-sm">
      <div className="min-w-0 flex-1">
        <p className="truncate font-medium">{member.name}</p>
        <p className="truncate text-slate-600 dark:text-slate-400">{member.email}</p>
      </div>
      {removable ? (
        <fetcher.Form method="post">
          <input type="hidden" name="intent" value="remove-team-member" />
          <input type="hidden" name="userId" value={member.userId} />
          <SubmitButton
            variant="ghost"
            className="px-3 py-1.5"
            pending={pending}
            aria-label={t("teams.removeMemberLabel", { name: member.name })}
          >
            {t("teams.removeMember")}
          </SubmitButton>
        </fetcher.Form>
      ) : null}
      {errors.length ? (
        <div className="basis-full">
          <FormErrors errors={errors} />
        </div>
      ) : null}
    </li>
  );
}

/**
 * The people outside the team, each with an Add button: the first few, or those the search
 * finds. One form: the button pressed names the person.
 */
function AddMembers({ add }: { add: NonNullable<LoaderData["add"]> }) {
  const { t } = useTranslation("organization");
  const { fetcher, form, fields, pending } = useSectionForm("add-team-member", teamMemberSchema);
  const adding = pending ? fetcher.formData?.get("userId") : null;
  return (
    <div className="flex flex-col gap-2">
      <h3 className="text-sm font-medium">{t("teams.addMember")}</h3>
      <Form method="get" role="search" preventScrollReset className="flex flex-wrap items-end gap-2">
        <label className="flex flex-col gap-1 text-xs font-medium">
          {t("teams.search")}
          <input type="search" name="q" defaultValue={add.query} className={`${inputClass} w-auto`} />
        </label>
        <button type="submit" className={buttonClass("secondary")}>
          {t("teams.searchSubmit")}
        </button>
      </Form>
      <fetcher.Form method="post" {...getFormProps(form)} className="flex flex-col gap-2">
        <input type="hidden" name="intent" value="add-team-member" />
        <FormErrors id={form.errorId} errors={form.errors} />
        <FieldErrors id={fields.userId.errorId} errors={fields.userId.errors} />
        {add.candidates.length ? (
          <ul className="divide-y divide-slate-200 dark:divide-slate-800" data-testid="team-candidates">
            {add.candidates.map((member) => (
              <li
                key={member.userId}
                data-team-candidate={member.email}
                className="flex items-center gap-3 py-2 text-sm"
              >
                <div className="min-w-0 flex-1">
                  <p className="truncate font-medium">{member.name}</p>
                  <p className="truncate text-slate-600 dark:text-slate-400">{member.email}</p>
                </div>
                <SubmitButton
                  name="userId"
                  value={member.userId}
                  variant="secondary"
                  className="px-3 py-1.5"
                  pending={adding === member.userId}
                  pendingLabel={t("teams.addPending")}
                  aria-label={t("teams.addLabel", { name: member.name })}
                >
                  {t("teams.add")}
                </SubmitButton>
              </li>
            ))}
          </ul>
        ) : (
          <p className="text-sm text-slate-600 dark:text-slate-400">{t("teams.noCandidates")}</p>
        )}
        {add.more ? (
          <p className="text-sm text-slate-600 dark:text-slate-400">
            {t("teams.moreCandidates", { count: add.candidates.length })}
          </p>
        ) : null}
      </fetcher.Form>
    </div>
  );
}
