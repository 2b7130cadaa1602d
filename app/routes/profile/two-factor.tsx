import { getFormProps, type Submission, type SubmissionResult } from "@conform-to/react";
import { data, Form, useActionData } from "react-router";
import type { Route } from "./+types/two-factor";
import { AppLink } from "~/components/AppLink";
import { Notice } from "~/components/ui/AuthCard";
import { buttonClass, SubmitButton, type ButtonVariant } from "~/components/ui/Button";
import { Field } from "~/components/ui/Field";
import { FormErrors } from "~/components/ui/FormErrors";
import { usePendingIntent } from "~/components/ui/pending";
import { usePageForm } from "~/components/ui/section-form";
import { Section } from "~/components/ui/Section";
import { localizePath } from "~/i18n/config";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { disableSchema, enableSchema, regenerateSchema, revealSchema, verifySetupSchema } from "~/lib/two-factor-forms";
import { useLocalize } from "~/lib/use-root-data";
import { hasPassword } from "~/server/auth/account-management.server";
import { requireUser } from "~/server/auth/guards.server";
import type { AuthSession } from "~/server/auth/session.server";
import {
  disableTwoFactor,
  enableTwoFactor,
  getTotpURI,
  qrCodeSvg,
  regenerateBackupCodes,
  secretOf,
  twoFactorState,
  verifySecondStep,
} from "~/server/auth/two-factor.server";
import { authT, cookieHeaders, failed, type FieldErrors } from "~/server/forms.server";
import { pageAction } from "~/server/page-action.server";
import { pageMeta } from "~/server/page-meta.server";
import { redirectWithToast } from "~/server/toast.server";

/**
 * Two-factor settings: switch it on (password → QR code, secret and backup codes → a first
 * code), see how many backup codes are left, make a new set, switch it off. Secrets and
 * codes are shown once, in the answer to the form that made them, never in a loader. After a
 * wrong first code the secret is shown again only in the answer to the password.
 */
export const handle = { i18n: ["auth"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export async function loader({ context }: Route.LoaderArgs) {
  const user = requireUser(context);
  const [state, withPassword] = await Promise.all([twoFactorState(user.id), hasPassword(user.id)]);
  return {
    meta: pageMeta(context, "twoFactorSettings"),
    enabled: user.twoFactorEnabled,
    totp: state.totp,
    backupCodes: state.backupCodes,
    trustedDevices: state.trustedDevices,
    hasPassword: withPassword,
  };
}

export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

/**
 * What the setup step shows: the QR code (SVG drawn here) and the secret as text, when the
 * form answered was given the password; the backup codes shown with them.
 */
async function setupView(
  uri: string | null,
  backupCodes: string[],
): Promise<{ secret?: string; qrSvg?: string; backupCodes: string[] }> {
  if (!uri) return { backupCodes };
  return { secret: secretOf(uri), qrSvg: await qrCodeSvg(uri), backupCodes };
}

/** The backup codes the setup form carried back (shown again, never read from the store). */
const carriedCodes = (value: string | undefined) =>
  (value ?? "").split(" ").filter((code) => /^[A-Za-z0-9]{5}-[A-Za-z0-9]{5}$/.test(code));

const FIELDS: FieldErrors = { INVALID_PASSWORD: "password", INVALID_CODE: "code" };

/**
 * A refusal of the set-up's forms (a wrong first code, or password): the set-up again, to try
 * the next code, without the secret.
 */
async function setupAgain(
  form: "verify" | "reveal",
  error: unknown,
  { auth, submission, value }: { auth: AuthSession; submission: Submission<unknown>; value: { backupCodes?: string } },
) {
  const answer = failed(submission, error, FIELDS, { intent: form });
  const { setupPending } = await twoFactorState(auth.user.id);
  const setup = setupPending ? await setupView(null, carriedCodes(value.backupCodes)) : undefined;
  return data({ ...answer.data, setup }, answer.init ?? undefined);
}

/**
 * Each form counts under the /api/auth call it stands for.
 */
export const action = pageAction({
  auth: "required",
  intents: (intent) => ({
    enable: intent({
      schema: enableSchema,
      rateLimit: "/two-factor/enable",
      fields: FIELDS,
      extra: () => ({ intent: "enable" as const }),
      async run({ auth, meta, value: { password }, submission }) {
        const result = await enableTwoFactor(auth, { password }, meta);
        if (result.method !== "totp") throw new Error("unreachable: the page enables TOTP");
        const setup = await setupView(result.totpURI, result.backupCodes);
        return { intent: "enable" as const, result: submission.reply({ resetForm: true }), setup };
      },
    }),
    verify: intent({
      schema: verifySetupSchema,
      rateLimit: "/two-factor/verify-totp",
      fields: FIELDS,
      extra: () => ({ intent: "verify" as const }),
      async run(ctx) {
        const { args, auth, meta, locale, value } = ctx;
        try {
          const { setCookies } = await verifySecondStep({ kind: "session", auth }, "totp", { code: value.code }, meta);
          const t = authT(args.context);
          return redirectWithToast(
            localizePath("/profile/two-factor", locale),
            {
              type: "success",
              title: t("twoFactor.settings.enabled"),
              description: t("twoFactor.settings.enabledBody"),
            },
            { headers: cookieHeaders(setCookies) },
          );
        } catch (error) {
          return setupAgain("verify", error, ctx);
        }
      },
    }),
    reveal: intent({
      schema: revealSchema,
      rateLimit: "/two-factor/get-totp-uri",
      fields: FIELDS,
      extra: () => ({ intent: "reveal" as const }),
      async run(ctx) {
        const { auth, meta, value, submission } = ctx;
        try {
          const uri = await getTotpURI(auth, value.password, meta);
          const setup = await setupView(uri, carriedCodes(value.backupCodes));
          return { intent: "reveal" as const, result: submission.reply({ resetForm: true }), setup };
        } catch (error) {
          return setupAgain("reveal", error, ctx);
        }
      },
    }),
    regenerate: intent({
      schema: regenerateSchema,
      rateLimit: "/two-factor/generate-backup-codes",
      fields: FIELDS,
      extra: () => ({ intent: "regenerate" as const }),
      async run({ auth, meta, value: { password }, submission }) {
        const newCodes = await regenerateBackupCodes(auth, password, meta);
        return { intent: "regenerate" as const, result: submission.reply({ resetForm: true }), newCodes };
      },
    }),
    disable: intent({
      schema: disableSchema,
      rateLimit: "/two-factor/disable",
      fields: FIELDS,
      extra: () => ({ intent: "disable" as const }),
      async run({ args, auth, meta, locale, value: { password } }) {
        const { setCookies } = await disableTwoFactor(auth, password, meta);
        return redirectWithToast(
          localizePath("/profile/two-factor", locale),
          { type: "success", title: authT(args.context)("twoFactor.settings.disabled") },
          { headers: cookieHeaders(setCookies) },
        );
      },
    }),
  }),
});

type ActionData = {
  intent: (typeof action.intents)[number];
  result?: SubmissionResult<string[]>;
  setup?: Awaited<ReturnType<typeof setupView>>;
  newCodes?: string[];
};

export default function TwoFactorSettings({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("auth");
  const localize = useLocalize();
  const actionData = useActionData<typeof action>() as ActionData | undefined;
  const setup = actionData?.setup;
  return (
    <div className="flex max-w-3xl flex-col gap-8">
      <div>
        <AppLink
          to={localize("/profile/security")}
          className="text-sm text-primary-700 hover:underline dark:text-primary-400"
        >
          ← {t("twoFactor.settings.back")}
        </AppLink>
        <h1 className="mt-2 text-2xl font-bold tracking-tight">{loaderData.meta.title}</h1>
        <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">{loaderData.meta.description}</p>
      </div>
      {setup ? (
        <>
          <SetupSection setup={setup} lastResult={actionData?.intent === "verify" ? actionData.result : undefined} />
          {setup.secret ? null : (
            <PasswordSection
              intent="reveal"
              title={t("twoFactor.settings.revealTitle")}
              description={t("twoFactor.settings.revealDescription")}
              submit={t("twoFactor.settings.reveal")}
              lastResult={actionData?.intent === "reveal" ? actionData.result : undefined}
              backupCodes={setup.backupCodes}
            />
          )}
        </>
      ) : loaderData.enabled ? (
        <>
          <StatusSection {...loaderData} />
          <PasswordSection
            intent="regenerate"
            title={t("twoFactor.settings.regenerateTitle")}
            description={t("twoFactor.settings.regenerateDescription")}
            submit={t("twoFactor.settings.regenerate")}
            lastResult={actionData?.intent === "regenerate" ? actionData.result : undefined}
          >
            {actionData?.newCodes ? <BackupCodes codes={actionData.newCodes} /> : null}
          </PasswordSection>
          <PasswordSection
            intent="disable"
            tone="danger"
            variant="danger"
            title={t("twoFactor.settings.disableTitle")}
            description={t("twoFactor.settings.disableDescription")}
            submit={t("twoFactor.settings.disable")}
            lastResult={actionData?.intent === "disable" ? actionData.result : undefined}
          />
        </>
      ) : loaderData.hasPassword ? (
        <PasswordSection
          intent="enable"
          title={t("twoFactor.settings.enableTitle")}
          description={t("twoFactor.settings.enableDescription")}
          submit={t("twoFactor.settings.enable")}
          lastResult={actionData?.intent === "enable" ? actionData.result : undefined}
        />
      ) : (
        <Section
          id="two-factor"
          title={t("twoFactor.settings.enableTitle")}
          description={t("twoFactor.settings.enableDescription")}
        >
          <Notice tone="info" title={t("twoFactor.settings.needsPassword")} testId="two-factor-needs-password">
            {t("twoFactor.settings.needsPasswordBody")}
          </Notice>
        </Section>
      )}
    </div>
  );
}

function StatusSection({
  totp,
  backupCodes,
  trustedDevices,
}: {
  totp: boolean;
  backupCodes: number;
  trustedDevices: number;
}) {
  const { t } = useTranslation("auth");
  return (
    <Section
      id="two-factor"
      title={t("twoFactor.settings.statusTitle")}
      description={t("twoFactor.settings.onDescription")}
    >
      <dl className="grid gap-3 text-sm sm:grid-cols-3" data-testid="two-factor-status">
        <Fact
          label={t("twoFactor.settings.method")}
          value={totp ? t("twoFactor.settings.methodTotp") : t("twoFactor.settings.methodEmail")}
        />
        <Fact label={t("twoFactor.settings.backupCodesLeft")} value={String(backupCodes)} testId="backup-codes-left" />
        <Fact label={t("twoFactor.settings.trustedDevices")} value={String(trustedDevices)} />
      </dl>
    </Section>
  );
}

function Fact({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <div>
      <dt className="text-slate-500 dark:text-slate-400">{label}</dt>
      <dd className="mt-1 font-medium" data-testid={testId}>
        {value}
      </dd>
    </div>
  );
}

/** A form that takes only the password (enable, show the setup again, new backup codes, disable). */
function PasswordSection({
  intent,
  title,
  description,
  submit,
  lastResult,
  tone,
  variant = "primary",
  backupCodes,
  children,
}: {
  intent: "enable" | "reveal" | "regenerate" | "disable";
  title: string;
  description: string;
  submit: string;
  lastResult: ActionData["result"];
  tone?: "danger";
  variant?: ButtonVariant;
  /** The setup's backup codes, carried so that its answer shows them again. */
  backupCodes?: string[];
  children?: React.ReactNode;
}) {
  const { t } = useTranslation("auth");
  const pending = usePendingIntent(intent);
  const [form, fields] = usePageForm(
    () =>
      import("~/lib/two-factor-forms").then(
        (m) =>
          ({
            enable: m.enableSchema,
            reveal: m.revealSchema,
            regenerate: m.regenerateSchema,
            disable: m.disableSchema,
          })[intent],
      ),
    { id: intent, lastResult },
  );
  return (
    <Section id={intent} tone={tone} title={title} description={description}>
      {children}
      <Form method="post" {...getFormProps(form)} className="mt-4 flex flex-col gap-4 sm:max-w-sm">
        <input type="hidden" name="intent" value={intent} />
        {backupCodes ? <input type="hidden" name="backupCodes" value={backupCodes.join(" ")} /> : null}
        <FormErrors id={form.errorId} errors={form.errors} />
        <Field
          field={fields.password}
          type="password"
          label={t("form.password")}
          inputProps={{ autoComplete: "current-password" }}
        />
        <SubmitButton variant={variant} pending={pending} className="self-start">
          {submit}
        </SubmitButton>
      </Form>
    </Section>
  );
}

function SetupSection({
  setup,
  lastResult,
}: {
  setup: NonNullable<ActionData["setup"]>;
  lastResult: ActionData["result"];
}) {
  const { t } = useTranslation("auth");
  const pending = usePendingIntent("verify");
  const [form, fields] = usePageForm(() => import("~/lib/two-factor-forms").then((m) => m.verifySetupSchema), {
    id: "verify",
    lastResult,
  });
  return (
    <Section
      id="setup"
      title={t(setup.qrSvg ? "twoFactor.settings.setupTitle" : "twoFactor.settings.retryTitle")}
      description={t(setup.qrSvg ? "twoFactor.settings.setupDescription" : "twoFactor.settings.retryDescription")}
    >
      {setup.qrSvg ? (
        <div className="mt-4 flex flex-col gap-6 sm:flex-row">
          <div
            className="h-48 w-48 shrink-0 rounded-lg border border-slate-200 bg-white p-2"
            role="img"
            aria-label={t("twoFactor.settings.qrLabel")}
            data-testid="totp-qr"
            // The SVG is drawn by the qrcode library on the server from our own URI: no markup from users.
            dangerouslySetInnerHTML={{ __html: setup.qrSvg }}
          />
          <div className="flex flex-col gap-2 text-sm">
            <p>{t("twoFactor.settings.secretHint")}</p>
            <code
              className="break-all rounded bg-slate-100 px-2 py-1 font-mono text-base dark:bg-slate-800"
              data-testid="totp-secret"
            >
              {setup.secret}
            </code>
          </div>
        </div>
      ) : null}
      {setup.backupCodes.length ? <BackupCodes codes={setup.backupCodes} /> : null}
      <Form method="post" {...getFormProps(form)} className="mt-6 flex flex-col gap-4 sm:max-w-sm">
        <input type="hidden" name="intent" value="verify" />
        <input type="hidden" name="backupCodes" value={setup.backupCodes.join(" ")} />
        <FormErrors id={form.errorId} errors={form.errors} />
        <Field
          field={fields.code}
          type="text"
          label={t("twoFactor.settings.firstCode")}
          inputProps={{
            autoComplete: "one-time-code",
            inputMode: "numeric",
            pattern: "[0-9]{6}",
            maxLength: 6,
            autoFocus: true,
          }}
        />
        <SubmitButton pending={pending} className="self-start">
          {t("twoFactor.settings.verify")}
        </SubmitButton>
      </Form>
    </Section>
  );
}

/** Backup codes, shown once, with a download as a text file (a data: link: no JavaScript needed). */
function BackupCodes({ codes }: { codes: string[] }) {
  const { t } = useTranslation("auth");
  const text = `${t("twoFactor.settings.backupCodesFileHeader")}\n\n${codes.join("\n")}\n`;
  return (
    <div className="mt-4 rounded-lg border border-amber-300 bg-amber-50 p-4 dark:border-amber-800 dark:bg-amber-950/40">
      <p className="text-sm font-medium">{t("twoFactor.settings.backupCodesTitle")}</p>
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{t("twoFactor.settings.backupCodesHint")}</p>
      <ul className="mt-3 grid grid-cols-2 gap-2 font-mono text-sm" data-testid="backup-codes">
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <a
        href={`data:text/plain;charset=utf-8,${encodeURIComponent(text)}`}
        download="backup-codes.txt"
        className={buttonClass("secondary", "mt-3")}
        data-testid="backup-codes-download"
      >
        {t("twoFactor.settings.download")}
      </a>
    </div>
  );
}
