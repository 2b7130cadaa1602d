import { Outlet, useLocation } from "react-router";
import type { z } from "zod";
import type { Route } from "./+types/members";
import { RoleBadge, useRoleText } from "~/components/RoleBadge";
import { buttonClass, SubmitButton } from "~/components/ui/Button";
import { FormErrors } from "~/components/ui/FormErrors";
import { inputClass } from "~/components/ui/Input";
import { Pagination } from "~/components/ui/Pagination";
import { useRowActions } from "~/components/ui/row-actions";
import { Section } from "~/components/ui/Section";
import { useRowForm } from "~/components/ui/section-form";
import { localizePath } from "~/i18n/config";
import { membersViewSchema, updateMemberRoleSchema } from "~/lib/organization-forms";
import { membersPath, organizationPath } from "~/lib/organization-paths";
import { numberFormat } from "~/lib/intl";
import { searchParamsOf } from "~/lib/reports";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocale, useLocalize } from "~/lib/use-root-data";
import { requireAuthSession } from "~/server/auth/guards.server";
import { ownerCount, updateMemberRole } from "~/server/organization/organizations.server";
import { memberOfPage, membersOfPage, organizationOfPage, organizationT } from "~/server/organization/pages.server";
import { assignableRoles, mayActOnMember, takesLastOwner } from "~/server/organization/permissions.server";
import { pageAction, type IntentContext } from "~/server/page-action.server";
import { pageMeta } from "~/server/page-meta.server";
import { redirectWithToast } from "~/server/toast.server";

export const handle = { i18n: ["auth", "organization"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/** The page of members the URL asks for (`?page=`). */
const pageOf = (url: URL) => membersViewSchema.parse(searchParamsOf(url)).page;

/**
 * The members, a page at a time, with what the caller's role allows on each: the roles it
 * may give and the member-over-member rule (permissions.server.ts); the services check again
 * on every post. The only owner gets no role control on their own row (the last-owner rule
 * would refuse any other role): the row says why instead.
 */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  const auth = requireAuthSession(context);
  const { organization, caller } = await organizationOfPage(url, auth, params.slug);
  const [{ members, total, page, pages }, soleOwner] = await Promise.all([
    membersOfPage(organization.id, pageOf(url)),
    takesLastOwner(caller.role, null, () => ownerCount(organization.id)),
  ]);
  return {
    meta: pageMeta(context, "organizationMembers", { name: organization.name }),
    slug: organization.slug,
    assignableRoles: assignableRoles(caller),
    members: members.map((member) => {
      const self = member.userId === auth.user.id;
      return {
        id: member.id,
        name: member.user.name,
        email: member.user.email,
        role: member.role,
        self,
        soleOwner: self && soleOwner,
        editable: mayActOnMember(caller, "update", member.role) && !(self && soleOwner),
        // One's own membership ends by leaving, in the settings.
        removable: !self && mayActOnMember(caller, "delete", member.role),
      };
    }),
    membersPage: { total, page, pages },
  };
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

type Page = Awaited<ReturnType<typeof organizationOfPage>>;
type Ctx<S extends z.ZodType> = IntentContext<"required", Page, z.output<S>>;

/**
 * A member's role form, one per row: a success goes back to the page of members it was on
 * with a toast (replacing the history entry); a refusal answers that row, told apart by `key`.
 */
export const action = pageAction({
  auth: "required",
  prepare: ({ args: { url, params }, auth }) => organizationOfPage(url, auth, params.slug!),
  intents: (intent) => ({
    "update-member-role": intent({
      schema: updateMemberRoleSchema,
      rateLimit: "/organization/update-member-role",
      fields: { ROLE_NOT_FOUND: "role" },
      extra: (formData) => ({ key: `update-member-role-${String(formData.get("memberId"))}` }),
      async run(ctx: Ctx<typeof updateMemberRoleSchema>) {
        const { memberId, role } = ctx.value;
        const { organization } = ctx.page;
        await updateMemberRole(ctx.auth, { memberId, role, organizationId: organization.id }, ctx.meta);
        const name = (await memberOfPage(organization.id, { id: memberId }))?.user.name ?? "";
        return redirectWithToast(
          membersPath(localizePath(organizationPath(organization.slug, "members"), ctx.locale), pageOf(ctx.args.url)),
          { type: "success", title: organizationT(ctx.args.context)("members.roleSaved", { name }) },
          { headers: { "X-Remix-Replace": "true" } },
        );
      },
    }),
  }),
});

type LoaderData = Route.ComponentProps["loaderData"];

export default function Members({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("organization");
  const locale = useLocale();
  // After a success the page is reloaded under a new location key: the forms start afresh.
  const { key } = useLocation();
  const here = useLocalize()(organizationPath(loaderData.slug, "members"));
  const { total, page, pages } = loaderData.membersPage;
  // A dialog opened from this page of members comes back to it.
  const onPage = membersPath("", page);
  const rowActions = useRowActions();
  return (
    <>
      <Section id="members" title={t("members.title")} description={t("members.description")}>
        <p className="mb-2 text-sm text-slate-600 dark:text-slate-400" data-testid="members-total">
          {t("members.total", { count: total, formatted: numberFormat(locale).format(total) })}
          {pages > 1 ? ` · ${t("members.page", { page, pages })}` : null}
        </p>
        {/* A list that lines up as columns from `md` on, and stacks each member's name, role and
            Remove on a phone, where a table would scroll sideways. */}
        <ul
          data-testid="member-list"
          aria-label={t("members.title")}
          onClick={rowActions.onClick}
          className="divide-y divide-slate-200 dark:divide-slate-800"
        >
          {loaderData.members.map((member) => (
            <li
              key={member.id}
              data-member={member.email}
              className="flex flex-col gap-3 py-4 md:grid md:grid-cols-[minmax(0,1fr)_minmax(0,18rem)_6rem] md:items-center md:gap-4 md:py-3"
            >
              <div className="min-w-0 text-sm">
                <p className="truncate font-medium">
                  {member.name}
                  {member.self ? (
                    <span className="ml-2 text-xs font-normal text-slate-600 dark:text-slate-400">
                      {t("members.you")}
                    </span>
                  ) : null}
                </p>
                <p className="truncate text-slate-600 dark:text-slate-400">{member.email}</p>
              </div>
              <div className="min-w-0">
                {member.editable ? (
                  <RoleForm
                    key={`role-${member.id}-${key}`}
                    member={member}
                    roles={loaderData.assignableRoles}
                    action={rowActions.action}
                  />
                ) : (
                  <div className="flex flex-col items-start gap-1">
                    <RoleBadge role={member.role} />
                    {member.soleOwner ? (
                      <>
                        <p className="text-xs text-slate-600 dark:text-slate-400" data-testid="sole-owner-note">
                          {t("members.soleOwner")}
                        </p>
                        <RowErrors id={`role-${member.id}-errors`} rowKey={`update-member-role-${member.id}`} />
                      </>
                    ) : null}
                  </div>
                )}
              </div>
              <div className="md:text-right">
                {member.removable ? (
                  <a
                    href={`${here}/${member.id}/remove${onPage}`}
                    data-dialog
                    aria-label={t("members.removeLabel", { name: member.name })}
                    className={buttonClass("dangerOutline", "shrink-0 px-3 py-1.5 whitespace-nowrap")}
                  >
                    {t("members.remove")}
                  </a>
                ) : null}
              </div>
            </li>
          ))}
        </ul>
        <Pagination
          page={page}
          pages={pages}
          href={(n) => `${membersPath(here, n)}#members-title`}
          label={t("members.pagination")}
          className="mt-4"
        />
      </Section>
      {/* The removal's confirmation is a child route, drawn as a dialog over the list. */}
      <Outlet />
    </>
  );
}

/** A member's role form: a plain form of the list (useRowActions), posted through the row's own fetcher. */
function RoleForm({
  member,
  roles,
  action,
}: {
  member: LoaderData["members"][number];
  roles: readonly string[];
  action: string;
}) {
  const { t } = useTranslation("organization");
  const roleText = useRoleText();
  const { submit, errors, pending } = useRowForm(`update-member-role-${member.id}`);
  const id = `role-${member.id}`;
  // A combined role ("admin,member") is offered as it is, besides the single ones.
  const options = roles.includes(member.role) ? roles : [member.role, ...roles];
  return (
    <form method="post" action={action} onSubmit={submit} className="flex flex-col gap-1">
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
          className={`${inputClass} min-w-0 flex-1 py-1.5`}
        >
          {options.map((role) => (
            <option key={role} value={role}>
              {roleText(role)}
            </option>
          ))}
        </select>
        <SubmitButton
          variant="secondary"
          className="shrink-0 px-3 py-1.5 whitespace-nowrap"
          pending={pending}
          aria-label={t("members.saveLabel", { name: member.name })}
        >
          {t("members.save")}
        </SubmitButton>
      </div>
      <FormErrors id={`${id}-errors`} errors={errors} />
    </form>
  );
}

/** A refusal of a row that shows no form (a role change posted for the only owner anyway). */
function RowErrors({ id, rowKey }: { id: string; rowKey: string }) {
  const { errors } = useRowForm(rowKey);
  return <FormErrors id={id} errors={errors} />;
}
