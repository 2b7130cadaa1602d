/**
 * The one mailer. With SMTP_URL set, messages go out through nodemailer over SMTP; without
 * it (development only: production requires SMTP_URL) they land in a local outbox:
 * data/outbox/<time>-<template>.eml plus a log line with the recipient, subject and file, so
 * flows can be followed without a mail server. The log line never carries the link: links
 * hold live tokens, and logs are copied to places a token must not reach.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import nodemailer, { type Transporter } from "nodemailer";
import { defaultLocale } from "~/i18n/config";
import { loadEnv, type Env } from "~/server/env.server";
import { AppError } from "~/server/errors.server";
import { i18nFor } from "~/server/i18n.server";
import { renderEmail, type TemplateData, type TemplateName } from "./templates.server";
import { logger } from "~/server/log.server";
import { traced } from "~/server/tracing.server";
import { mailFailed, mailSent } from "~/server/metrics.server";

export type { TemplateData, TemplateName } from "./templates.server";

const OUTBOX_DIR = "data/outbox";

export interface MailInput {
  to: string;
  template: TemplateName;
  /** The recipient's language: the locale of the page or request that triggered the mail. */
  locale: string;
  data: TemplateData;
}

let smtp: Transporter | undefined;
let outbox: Transporter | undefined;

/**
 * Nodemailer waits up to two minutes for a connection and half a minute for the greeting by
 * default: far longer than a person waits for a page. A mail server that does not answer
 * within these makes the request fail (EMAIL_SEND_FAILED) instead; SMTP_URL's own query
 * parameters (e.g. `?connectionTimeout=30000`) still win.
 */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

function smtpTransport(url: string): Transporter {
  if (!smtp) {
    const withTimeouts = new URL(url);
    for (const [name, ms] of Object.entries(SMTP_TIMEOUTS)) {
      if (!withTimeouts.searchParams.has(name)) withTimeouts.searchParams.set(name, String(ms));
    }
    // Not pooled: each message opens its own connection, so a mail server that comes back
    // is used again at once, with no broken connection to notice first.
    smtp = nodemailer.createTransport(withTimeouts.toString());
  }
  return smtp;
}

/** Builds the raw message without sending it (the outbox stores it as an .eml file). */
function outboxTransport(): Transporter {
  return (outbox ??= nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" }));
}

/**
 * Who emails come from: MAIL_FROM, else the product's name (the catalogue's brand) at
 * no-reply@ the public host, e.g. `"Acme Cloud" <no-reply@app.example.com>`, so a fresh
 * install does not write as a generic "App". An address without a dotted name (localhost, an
 * IP address) falls back to no-reply@localhost, which is still a valid address.
 */
export function mailSender(env: Pick<Env, "MAIL_FROM" | "BASE_URL">): string {
  if (env.MAIL_FROM) return env.MAIL_FROM;
  const brand = i18nFor(defaultLocale).t("common:brand").replace(/["\\]/g, "");
  const host = new URL(env.BASE_URL).hostname;
  const domain = /^[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}$/i.test(host) ? host : "localhost";
  return `"${brand}" <no-reply@${domain}>`;
}

/**
 * Renders and sends one email. When it cannot be handed over (the mail server is down,
 * refuses it or does not answer in time) this throws the catalogue's EMAIL_SEND_FAILED (503),
 * which the API and the pages show like any other error, in the user's language; callers
 * undo whatever they did for this email, so that trying again later works. The mail server's
 * own error goes to the log only.
 */
export async function sendMail({ to, template, locale, data }: MailInput): Promise<void> {
  const { subject, text, html } = renderEmail(template, locale, data);
  try {
    await deliver(template, { from: mailSender(loadEnv()), to, subject, text, html });
    mailSent.inc({ template });
  } catch (error) {
    mailFailed.inc({ template });
    const reason = error instanceof Error ? error.message : String(error);
    logger().error(`Sending the ${template} email failed: ${reason}`);
    throw new AppError("EMAIL_SEND_FAILED");
  }
  // The template only: the message itself carries links with tokens.
  logger().info({ template }, "Email sent");
}

/**
 * Sends an email whose sending is the point of what was just written (a stored link token, a
 * new invitation): when it cannot be sent, `undo` takes those writes back before the error
 * goes on, so nothing is left half-done and trying again works.
 */
export async function sendMailOrUndo(input: MailInput, undo: () => Promise<unknown>): Promise<void> {
  try {
    await sendMail(input);
  } catch (error) {
    await undo().catch((undoError: unknown) =>
      logger().error({ err: undoError }, "Undoing after a failed email did not work"),
    );
    throw error;
  }
}

async function deliver(
  template: TemplateName,
  message: { from: string; to: string; subject: string; text: string; html: string },
): Promise<void> {
  const { SMTP_URL } = loadEnv();
  const { to, subject } = message;

  if (SMTP_URL) {
    const { hostname, port } = new URL(SMTP_URL);
    const attributes = { "server.address": hostname, "server.port": Number(port || 25), "app.mail.template": template };
    await traced("smtp send", attributes, () => smtpTransport(SMTP_URL).sendMail(message));
    return;
  }
  const info = (await outboxTransport().sendMail(message)) as { message: Buffer };
  const dir = resolve(OUTBOX_DIR);
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, "-")}-${template}.eml`);
  await writeFile(file, info.message);
  logger().info(`[outbox] to ${to}: "${subject}" (${file})`);
}
