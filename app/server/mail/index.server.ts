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
import { loadEnv } from "~/server/env.server";
import { renderEmail, type TemplateData, type TemplateName } from "./templates.server";

export type { TemplateData, TemplateName } from "./templates.server";

export const OUTBOX_DIR = "data/outbox";

export interface MailInput {
  to: string;
  template: TemplateName;
  /** The recipient's language: the locale of the page or request that triggered the mail. */
  locale: string;
  data: TemplateData;
}

let smtp: Transporter | undefined;
let outbox: Transporter | undefined;

function smtpTransport(url: string): Transporter {
  return (smtp ??= nodemailer.createTransport(url));
}

/** Builds the raw message without sending it (the outbox stores it as an .eml file). */
function outboxTransport(): Transporter {
  return (outbox ??= nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" }));
}

/** Renders and sends one email; throws when the SMTP server refuses it. */
export async function sendMail({ to, template, locale, data }: MailInput): Promise<void> {
  const { SMTP_URL, MAIL_FROM } = loadEnv();
  const { subject, text, html } = renderEmail(template, locale, data);
  const message = { from: MAIL_FROM, to, subject, text, html };

  if (SMTP_URL) {
    await smtpTransport(SMTP_URL).sendMail(message);
    return;
  }
  const info = (await outboxTransport().sendMail(message)) as { message: Buffer };
  const dir = resolve(OUTBOX_DIR);
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, "-")}-${template}.eml`);
  await writeFile(file, info.message);
  console.log(`[outbox] to ${to}: "${subject}" (${file})`);
}
