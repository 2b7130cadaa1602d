import { getFormProps, getSelectProps, useForm, type DefaultValue, type SubmissionResult } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { data, Outlet, useActionData, useFetcher, useLocation } from "react-router";
import type { z } from "zod";
import type { Route } from "./+types/organization";
import { AppLink } from "~/components/AppLink";
import { RoleBadge, useRoleText } from "~/components/RoleBadge";
import { buttonClass, SubmitButton } from "~/components/ui/Button";
import { Field, TextareaField } from "~/components/ui/Field";
import { FieldErrors, FormErrors } from "~/components/ui/FormErrors";
import { inputClass } from "~/components/ui/Input";
import { Section } from "~/components/ui/Section";
import { localizePath } from "~/i18n/config";
import { SLUG_MAX, updateMemberRoleSchema, updateOrganizationSchema } from "~/lib/organization-forms";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocale, useLocalize } from "~/lib/use-root-data";
import { zodErrorMap } from "~/lib/validation";
import { getAuthSession, requireUser } from "~/server/auth/guards.server";
import { enforceRateLimit } from "~/server/auth/rate-limit.server";
import { requestMeta } from "~/server/auth/session.server";
import { loadEnv } from "~/server/env.server";
import { failed, invalid, pageLocale } from "~/server/forms.server";
import { updateMemberRole, updateOrganization } from "~/server/organization/organizations.server";
import { organizationOfPage, organizationT } from "~/server/organization/pages.server";
import { can, isOwner, ORGANIZATION_ROLES } from "~/server/organization/permissions.server";
import { pageMeta } from "~/server/page-meta.server";
import { redirectWithToast } from "~/server/toast.server";

export const handle = { i18n: ["auth", "organization"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/**
 * The page shows what the caller's role allows (permissions.server.ts); the services check
 * again on every post.
 */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  requireUser(request, context); // the menu layout's middleware has already made sure
  const auth = getAuthSession(context)!;
  const { organization, caller } = await organizationOfPage(request, auth, params.slug);
  const role = caller.role;
  const owner = isOwner(role);
  const mayUpdateMembers = can(role, "member", ["update"]);
  const mayRemoveMembers = can(role, "member", ["delete"]);
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
    mayUpdate: can(role, "organization", ["update"]),
    mayDelete: can(role, "organization", ["delete"]) && loadEnv().ORGANIZATION_DELETION,
    // Only an owner makes, unmakes or removes an owner.
    assignableRoles: ORGANIZATION_ROLES.filter((name) => owner || name !== "owner"),
    members: organization.members.map((member) => {
      const self = member.userId === auth.user.id;
      const reachable = owner || !isOwner(member.role);
      return {
        id: member.id,
        name: member.user.name,
        email: member.user.email,
        role: member.role,
        self,
        editable: mayUpdateMembers && reachable,
        removable: mayRemoveMembers && reachable && !self,
      };
    }),
  };
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

/**
 * The settings form and the members' role forms; `intent` tells them apart. A success
 * redirects (replacing the history entry) with a toast, so every loader runs again; a
 * failure answers the form it came from, told apart by `key`.
 */
export async function action({ request, params, context }: Route.ActionArgs) {
  requireUser(request, context);
  const auth = getAuthSession(context)!;
  const { organization } = await organizationOfPage(request, auth, params.slug);
  const locale = pageLocale(context);
  const t = organizationT(context);
  const meta = requestMeta(request, context);
  const formData = await request.formData();
  const intent = formData.get("intent");
  const done = (title: string, slug = organization.slug) =>
    redirectWithToast(
      localizePath(`/organizations/${slug}`, locale),
      { type: "success", title },
      { headers: { "X-Remix-Replace": "true" } },
    );

  if (intent === "update-organization") {
    const extra = { key: intent };
    const submission = parseWithZod(formData, { schema: updateOrganizationSchema, error: zodErrorMap(locale) });
    if (submission.status !== "success") return invalid(submission, extra);
    const { name, slug, logo, metadata } = submission.value;
    try {
      await enforceRateLimit(meta.ipAddress, "/organization/update");
      const updated = await updateOrganization(
        auth,
        // An emptied field clears the logo or the metadata.
        { organizationId: organization.id, data: { name, slug, logo: logo ?? null, metadata: metadata ?? null } },
        meta,
      );
      return done(t("settings.saved"), updated.slug);
    } catch (error) {
      return failed(submission, error, { ORGANIZATION_SLUG_ALREADY_TAKEN: "slug" }, extra);
    }
  }

  if (intent === "update-member-role") {
    const extra = { key: `${intent}-${String(formData.get("memberId"))}` };
    const submission = parseWithZod(formData, { schema: updateMemberRoleSchema, error: zodErrorMap(locale) });
    if (submission.status !== "success") return invalid(submission, extra);
    const { memberId, role } = submission.value;
    try {
      await enforceRateLimit(meta.ipAddress, "/organization/update-member-role");
      await updateMemberRole(auth, { memberId, role, organizationId: organization.id }, meta);
    } catch (error) {
      return failed(submission, error, { ROLE_NOT_FOUND: "role" }, extra);
    }
    const name = organization.members.find((member) => member.id === memberId)?.user.name ?? "";
    return done(t("members.roleSaved", { name }));
  }

  throw data("Unknown intent", { status: 400 });
}

// ---------------------------------------------------------------------------------------

type LoaderData = Route.ComponentProps["loaderData"];

export default function Organization({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("organization");
  const localize = useLocalize();
  // After a success the page is reloaded under a new location key: the forms start afresh.
  const { key } = useLocation();
  const { organization } = loaderData;
  const here = localize(`/organizations/${organization.slug}`);
  return (
    <div className="flex max-w-4xl flex-col gap-8">
      <Header data={loaderData} />
      {loaderData.mayUpdate ? <SettingsSection key={`settings-${key}`} organization={organization} /> : null}
      <MembersSection
        key={`members-${key}`}
        members={loaderData.members}
        assignableRoles={loaderData.assignableRoles}
        here={here}
      />
      {/* Invitations and teams get their sections here, beside the members. */}
      <Section id="leave" title={t("leave.title")} description={t("leave.description")}>
        <AppLink to={`${here}/leave`} preventScrollReset className={buttonClass("secondary")}>
          {t("leave.open")}
        </AppLink>
      </Section>
      {loaderData.mayDelete ? (
        <Section id="danger" tone="danger" title={t("delete.title")} description={t("delete.description")}>
          <AppLink to={`${here}/delete`} preventScrollReset className={buttonClass("dangerOutline")}>
            {t("delete.open")}
          </AppLink>
        </Section>
      ) : null}
      {/* The confirmation dialogs (remove a member, leave, delete) are child routes. */}
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
        <span className="flex size-14 shrink-0 items-center justify-center rounded-lg bg-primary-600 text-2xl font-semibold text-white">
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

type AnyResult = SubmissionResult<string[]>;

/**
 * A form of the page: a fetcher under `key`, so forms submit independently and keep their
 * own errors. Without JavaScript the same markup is a plain POST form and the action data
 * (for this key) brings the errors back.
 */
function useSectionForm<Schema extends z.ZodObject>(
  key: string,
  schema: Schema,
  defaultValue?: DefaultValue<z.input<Schema>>,
) {
  const locale = useLocale();
  const fetcher = useFetcher<typeof action>({ key });
  const actionData = useActionData<typeof action>();
  const lastResult = (fetcher.data?.result ?? (actionData?.key === key ? actionData.result : undefined)) as
    AnyResult | undefined;
  const [form, fields] = useForm<z.input<Schema>, z.output<Schema>, string[]>({
    id: `form-${key}`,
    lastResult,
    defaultValue,
    constraint: getZodConstraint(schema),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema, error: zodErrorMap(locale) }),
  });
  return { fetcher, form, fields, pending: fetcher.state !== "idle" };
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
  assignableRoles,
  here,
}: {
  members: LoaderData["members"];
  assignableRoles: LoaderData["assignableRoles"];
  here: string;
}) {
  const { t } = useTranslation("organization");
  return (
    <Section id="members" title={t("members.title")} description={t("members.description")}>
      <div className="overflow-x-auto">
        <table className="w-full text-left text-sm" data-testid="member-list">
          <thead className="text-xs text-slate-500">
            <tr>
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
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-200 dark:divide-slate-800">
            {members.map((member) => (
              <tr key={member.id} data-member={member.email}>
                <td className="py-3 pr-4 font-medium">
                  {member.name}
                  {member.self ? (
                    <span className="ml-2 text-xs font-normal text-slate-500">{t("members.you")}</span>
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
                      to={`${here}/members/${member.id}/remove`}
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
          </tbody>
        </table>
      </div>
    </Section>
  );
}

function RoleForm({ member, roles }: { member: LoaderData["members"][number]; roles: readonly string[] }) {
  const { t } = useTranslation("organization");
  const roleText = useRoleText();
  const { fetcher, form, fields, pending } = useSectionForm(`update-member-role-${member.id}`, updateMemberRoleSchema, {
    role: member.role,
  });
  const { key, ...selectProps } = getSelectProps(fields.role, { ariaAttributes: true });
  // A combined role ("admin,member") is offered as it is, besides the single ones.
  const options = roles.includes(member.role) ? roles : [member.role, ...roles];
  return (
    <fetcher.Form method="post" {...getFormProps(form)} className="flex flex-col gap-1">
      <input type="hidden" name="intent" value="update-member-role" />
      <input type="hidden" name="memberId" value={member.id} />
      <div className="flex items-center gap-2">
        <label htmlFor={fields.role.id} className="sr-only">
          {t("members.roleLabel", { name: member.name })}
        </label>
        <select key={key} {...selectProps} className={`${inputClass} w-auto py-1.5`}>
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
      <FormErrors id={form.errorId} errors={form.errors} />
      <FieldErrors id={fields.role.errorId} errors={fields.role.errors} />
    </fetcher.Form>
  );
}
