/**
 * Localized email templates. The strings live in locales/<lng>/email.json (one object per
 * template: subject, heading, intro, action, outro, and an optional footer) and are only bundled into the server:
 * they are not an i18next namespace because pages never show them, and the root loader
 * sends every namespace of the page's language to the browser.
 */
import { defaultLocale, isLocale, type Locale } from "~/i18n/config";
import { escapeHtml } from "~/lib/html";

const files = import.meta.glob<{ default: EmailStrings }>("../../../locales/*/email.json", { eager: true });

export const templateNames = [
  "verify-email",
  "reset-password",
  "change-email-confirmation",
  "delete-account",
  "sign-up-attempt",
  "email-in-use",
  "organization-invitation",
  "two-factor-code",
  "webhook-disabled",
] as const;
export type TemplateName = (typeof templateNames)[number];

export interface TemplateData {
  /** The link the email is about (none for a code). */
  url?: string;
  /** A one-time code the email carries instead of a link. */
  code?: string;
  /** The recipient's name; greetings fall back to a neutral form without it. */
  name?: string | null;
  oldEmail?: string;
  newEmail?: string;
  /** Invitations: the organization, who invites, and the offered role ("admin,member"). */
  organizationName?: string;
  inviterName?: string;
  role?: string;
  /** A webhook endpoint's address (its being turned off). */
  endpointUrl?: string;
}

/** A template's own footer replaces the common one (an invitee may have no account yet). */
type TemplateStrings = {
  subject: string;
  heading: string;
  intro: string;
  action: string;
  outro: string;
  footer?: string;
};
type EmailStrings = {
  brand: string;
  greeting: string;
  greetingNoName: string;
  linkHint: string;
  footer: string;
  /** Organization role names, as invitations show them. */
  roles: Record<string, string>;
} & Record<TemplateName, TemplateStrings>;

function stringsFor(locale: Locale): EmailStrings {
  const file = files[`../../../locales/${locale}/email.json`] ?? files[`../../../locales/${defaultLocale}/email.json`];
  if (!file) throw new Error("locales/en/email.json is missing");
  return file.default;
}

/** Replaces {{key}} placeholders; values are inserted as given (escaping is the caller's job). */
function fill(text: string, values: Record<string, string>): string {
  return text.replace(/{{\s*(\w+)\s*}}/g, (whole, key: string) => values[key] ?? whole);
}

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

/** Builds the subject, plain-text and HTML bodies of `template` in `locale`. */
export function renderEmail(template: TemplateName, locale: string, data: TemplateData): RenderedEmail {
  const lng = isLocale(locale) ? locale : defaultLocale;
  const strings = stringsFor(lng);
  const t = strings[template];
  const values = {
    brand: strings.brand,
    name: data.name?.trim() ?? "",
    oldEmail: data.oldEmail ?? "",
    newEmail: data.newEmail ?? "",
    organizationName: data.organizationName ?? "",
    inviterName: data.inviterName ?? "",
    endpointUrl: data.endpointUrl ?? "",
    role: new Intl.ListFormat(lng).format(
      (data.role ?? "")
        .split(",")
        .filter(Boolean)
        .map((role) => strings.roles[role] ?? role),
    ),
  };
  const greeting = fill(values.name ? strings.greeting : strings.greetingNoName, values);
  const subject = fill(t.subject, values);
  const intro = fill(t.intro, values);
  const outro = fill(t.outro, values);
  const footer = fill(t.footer ?? strings.footer, values);

  // The link (or the code) stands alone on its line so that every mail client makes it
  // clickable (or easy to copy).
  const text = [
    greeting,
    "",
    intro,
    "",
    `${fill(t.action, values)}:`,
    data.code ?? data.url,
    "",
    outro,
    "",
    "--",
    footer,
  ].join("\n");

  const h = escapeHtml;
  const html = `<!doctype html>
<html lang="${h(locale)}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${h(subject)}</title></head>
<body style="margin:0;padding:24px;background:#f1f5f9;font-family:-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,'Noto Sans',sans-serif;color:#0f172a">
<table role="presentation" width="100%" cellspacing="0" cellpadding="0" style="max-width:560px;margin:0 auto;background:#ffffff;border-radius:8px">
<tr><td style="padding:32px">
<p style="margin:0 0 24px;font-weight:700;color:#16a34a">${h(strings.brand)}</p>
<h1 style="margin:0 0 16px;font-size:20px">${h(fill(t.heading, values))}</h1>
<p style="margin:0 0 16px;line-height:1.5">${h(greeting)}</p>
<p style="margin:0 0 24px;line-height:1.5">${h(intro)}</p>
${data.code ? codeBlock(h(fill(t.action, values)), h(data.code)) : linkBlock(h(fill(t.action, values)), h(data.url ?? ""), h(strings.linkHint))}
<p style="margin:0;line-height:1.5;color:#475569">${h(outro)}</p>
</td></tr>
<tr><td style="padding:16px 32px;border-top:1px solid #e2e8f0;font-size:12px;color:#64748b">${h(footer)}</td></tr>
</table>
</body>
</html>`;
  return { subject, text, html };
}

const linkBlock = (action: string, url: string, hint: string) =>
  `<p style="margin:0 0 24px"><a href="${url}" style="display:inline-block;padding:10px 18px;background:#16a34a;color:#ffffff;text-decoration:none;border-radius:6px;font-weight:600">${action}</a></p>
<p style="margin:0 0 8px;font-size:13px;color:#475569">${hint}</p>
<p style="margin:0 0 24px;font-size:13px;word-break:break-all"><a href="${url}" style="color:#16a34a">${url}</a></p>`;

const codeBlock = (action: string, code: string) =>
  `<p style="margin:0 0 8px;font-size:13px;color:#475569">${action}</p>
<p style="margin:0 0 24px;font-size:28px;font-weight:700;letter-spacing:6px;font-family:ui-monospace,Menlo,Consolas,monospace">${code}</p>`;
