import { getFormProps, getSelectProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, useLocation } from "react-router";
import type { Route } from "./+types/team";
import { buttonClass, SubmitButton } from "~/components/ui/Button";
import { ConfirmDialog } from "~/components/ui/ConfirmDialog";
import { Field } from "~/components/ui/Field";
import { FieldErrors, FormErrors } from "~/components/ui/FormErrors";
import { inputClass } from "~/components/ui/Input";
import { useSectionForm } from "~/components/ui/section-form";
import { AppLink } from "~/components/AppLink";
import { localizePath } from "~/i18n/config";
import { renameTeamSchema, teamMemberSchema } from "~/lib/organization-forms";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { zodErrorMap } from "~/lib/validation";
import { enforceRateLimit } from "~/server/auth/rate-limit.server";
import { requestMeta } from "~/server/auth/session.server";
import { failed, invalid, pageLocale } from "~/server/forms.server";
import { organizationT, teamOfRequest } from "~/server/organization/pages.server";
import { can } from "~/server/organization/permissions.server";
import { addTeamMember, removeTeamMember, updateTeam } from "~/server/organization/teams.server";
import { redirectWithToast } from "~/server/toast.server";

export const handle = { i18n: ["auth", "organization"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/**
 * A team's members, for every member of the organization to see; renaming (team:update),
 * adding (member:update) and taking out (member:delete) show for the roles that may.
 */
export async function loader(args: Route.LoaderArgs) {
  const { organization, caller, team } = await teamOfRequest(args);
  const person = (member: (typeof organization.members)[number]) => ({
    userId: member.userId,
    name: member.user.name,
    email: member.user.email,
  });
  return {
    team: { id: team.id, name: team.name },
    members: organization.members.filter((member) => team.userIds.includes(member.userId)).map(person),
    others: organization.members.filter((member) => !team.userIds.includes(member.userId)).map(person),
    mayRename: can(caller.role, "team", ["update"]),
    mayAdd: can(caller.role, "member", ["update"]),
    mayRemove: can(caller.role, "member", ["delete"]),
  };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.team.name, location, matches });

/** Rename, add a member, take one out: back to this dialog with a toast, or the form's errors. */
export async function action(args: Route.ActionArgs) {
  const { auth, organization, team } = await teamOfRequest(args);
  const { request, context } = args;
  const locale = pageLocale(context);
  const t = organizationT(context);
  const meta = requestMeta(request, context);
  const formData = await request.formData();
  const intent = formData.get("intent");
  const done = (title: string) =>
    redirectWithToast(
      localizePath(`/organizations/${organization.slug}/teams/${team.id}`, locale),
      { type: "success", title },
      { headers: { "X-Remix-Replace": "true" } },
    );

  if (intent === "rename-team") {
    const extra = { key: intent };
    const submission = parseWithZod(formData, { schema: renameTeamSchema, error: zodErrorMap(locale) });
    if (submission.status !== "success") return invalid(submission, extra);
    const { name } = submission.value;
    try {
      await enforceRateLimit(meta.ipAddress, "/organization/update-team");
      await updateTeam(auth, { teamId: team.id, data: { name, organizationId: organization.id } }, meta);
    } catch (error) {
      return failed(submission, error, {}, extra);
    }
    return done(t("teams.renamed", { name }));
  }

  if (intent === "add-team-member" || intent === "remove-team-member") {
    const add = intent === "add-team-member";
    const extra = { key: add ? intent : `${intent}-${String(formData.get("userId"))}` };
    const submission = parseWithZod(formData, { schema: teamMemberSchema, error: zodErrorMap(locale) });
    if (submission.status !== "success") return invalid(submission, extra);
    const input = { teamId: team.id, userId: submission.value.userId, organizationId: organization.id };
    try {
      await enforceRateLimit(meta.ipAddress, `/organization/${intent}`);
      await (add ? addTeamMember(auth, input, meta) : removeTeamMember(auth, input, meta));
    } catch (error) {
      return failed(submission, error, add ? { USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION: "userId" } : {}, extra);
    }
    const name = organization.members.find((member) => member.userId === input.userId)?.user.name ?? "";
    return done(t(add ? "teams.memberAdded" : "teams.memberRemoved", { name, team: team.name }));
  }

  throw data("Unknown intent", { status: 400 });
}

type LoaderData = Route.ComponentProps["loaderData"];

export default function Team({ loaderData, params }: Route.ComponentProps) {
  const { t } = useTranslation("organization");
  const back = useLocalize()(`/organizations/${params.slug}`);
  // After a success the dialog is reloaded under a new location key: the forms start afresh.
  const { key } = useLocation();
  const { team, members } = loaderData;
  return (
    <ConfirmDialog title={team.name} closeTo={back}>
      <div className="flex flex-col gap-6" data-testid="team">
        {loaderData.mayRename ? <RenameForm key={`rename-${key}`} name={team.name} /> : null}
        <div>
          <h3 className="text-sm font-medium">{t("teams.members")}</h3>
          {members.length ? (
            <ul className="mt-2 divide-y divide-slate-200 dark:divide-slate-800" data-testid="team-members">
              {members.map((member) => (
                <TeamMemberRow key={member.userId} member={member} removable={loaderData.mayRemove} />
              ))}
            </ul>
          ) : (
            <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">{t("teams.noMembers")}</p>
          )}
        </div>
        {loaderData.mayAdd && loaderData.others.length ? (
          <AddMemberForm key={`add-${key}`} others={loaderData.others} />
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
  const { fetcher, form, pending } = useSectionForm(`remove-team-member-${member.userId}`, teamMemberSchema);
  return (
    <li data-team-member={member.email} className="flex flex-wrap items-center gap-3 py-2 text-sm">
      <div className="min-w-0 flex-1">
        <p className="truncate font-medium">{member.name}</p>
        <p className="truncate text-slate-600 dark:text-slate-400">{member.email}</p>
      </div>
      {removable ? (
        <fetcher.Form method="post" {...getFormProps(form)}>
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
      {form.errors?.length ? (
        <div className="basis-full">
          <FormErrors id={form.errorId} errors={form.errors} />
        </div>
      ) : null}
    </li>
  );
}

function AddMemberForm({ others }: { others: LoaderData["others"] }) {
  const { t } = useTranslation("organization");
  const { fetcher, form, fields, pending } = useSectionForm("add-team-member", teamMemberSchema);
  const { key, ...selectProps } = getSelectProps(fields.userId, { ariaAttributes: true });
  return (
    <fetcher.Form method="post" {...getFormProps(form)} className="flex flex-col gap-2">
      <input type="hidden" name="intent" value="add-team-member" />
      <FormErrors id={form.errorId} errors={form.errors} />
      <label htmlFor={fields.userId.id} className="text-sm font-medium">
        {t("teams.addMember")}
      </label>
      <div className="flex flex-wrap items-center gap-2">
        <select key={key} {...selectProps} className={`${inputClass} w-auto`}>
          {others.map((member) => (
            <option key={member.userId} value={member.userId}>
              {member.name} ({member.email})
            </option>
          ))}
        </select>
        <SubmitButton variant="secondary" pending={pending} pendingLabel={t("teams.addPending")}>
          {t("teams.add")}
        </SubmitButton>
      </div>
      <FieldErrors id={fields.userId.errorId} errors={fields.userId.errors} />
    </fetcher.Form>
  );
}
