/**
 * The one mailer. A request queues its email (`sendMail`); a worker of the job queue, in any
 * instance, renders and sends it, retrying with backoff while the mail server is away
 * (docs/decisions/0032-mail-through-the-queue.md). With SMTP_URL set, messages go out through
 * nodemailer over SMTP; without it (development only: production requires SMTP_URL) they land
 * in a local outbox: data/outbox/<time>-<template>.eml plus a log line with the recipient,
 * subject and file, so flows can be followed without a mail server. No log line carries the
 * link: links hold live tokens, and logs are copied to places a token must not reach.
 */
import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import nodemailer, { type Transporter } from "nodemailer";
import { defaultLocale } from "~/i18n/config";
import { loadEnv, type Env } from "~/server/env.server";
import { decryptSecret, encryptSecret } from "~/server/crypto.server";
import { reportError } from "~/server/error-report.server";
import { i18nFor } from "~/server/i18n.server";
import { defineJob, enqueue, FinalJobFailure, type JobContext, type RetryPolicy } from "~/server/jobs/queue.server";
import { currentRequest, logger, runInRequest } from "~/server/log.server";
import { renderEmail, type TemplateData, type TemplateName } from "./templates.server";
import { mailFailed, mailSent } from "~/server/metrics.server";
import { traced } from "~/server/tracing.server";

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
 * default. A mail server that does not answer within these shorter limits fails the attempt,
 * which is tried again later, instead of holding a worker; SMTP_URL's own query parameters
 * (e.g. `?connectionTimeout=30000`) still win.
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

const MAIL_JOB = "mail";

/**
 * What the queue holds for one email. Its links and codes are live (a reset link is a
 * password), and the queue's tables are plain rows any database reader or backup sees: so the
 * message itself (recipient, data) is sealed with the key that protects stored secrets, and
 * only what says nothing is in clear (docs/decisions/0032-mail-through-the-queue.md).
 */
interface MailJob {
  /** For log lines: the kind of email, never whom it is for or what it carries. */
  template: TemplateName;
  /**
   * The same on every attempt, so that a message the mail server took although this instance
   * did not hear its answer (a retry then sends it again) is one message to whoever dedupes.
   */
  messageId: string;
  /** When it was asked for: its Date, so that of two codes the newer one sorts last. */
  date: string;
  /** The request that asked for it: the worker's lines carry its id, as the request's own do. */
  requestId?: string;
  /** The MailInput, encrypted with encryptSecret. */
  sealed: string;
}

const retryPolicy = (): RetryPolicy => {
  const env = loadEnv();
  return { limit: env.MAIL_RETRY_LIMIT, delaySeconds: env.MAIL_RETRY_DELAY_SECONDS, backoff: env.MAIL_RETRY_BACKOFF };
};

/**
 * Puts one email in the job queue; a worker of any instance sends it, retrying while the mail
 * server is down or refuses it (MAIL_RETRY_*). So a request never waits for, or fails with,
 * the mail server: this only fails when the database does, like the request's own writes.
 */
export async function sendMail(input: MailInput): Promise<void> {
  const env = loadEnv();
  const job: MailJob = {
    template: input.template,
    messageId: `<${randomUUID()}@${new URL(env.BASE_URL).hostname}>`,
    date: new Date().toISOString(),
    requestId: currentRequest()?.requestId,
    sealed: encryptSecret(env.AUTH_SECRET, JSON.stringify(input)),
  };
  await enqueue(MAIL_JOB, job);
}

defineJob<MailJob>(
  MAIL_JOB,
  ({ requestId, ...job }, context) =>
    requestId ? runInRequest({ requestId }, () => send(job, context)) : send(job, context),
  { retry: retryPolicy, concurrency: 2 },
);

/** One attempt at sending a queued email; throws (to be retried) when the mail server did not take it. */
async function send({ template, messageId, date, sealed }: MailJob, { attempt, lastAttempt }: JobContext) {
  try {
    const { to, locale, data } = JSON.parse(decryptSecret(loadEnv().AUTH_SECRET, sealed)) as MailInput;
    const { subject, text, html } = renderEmail(template, locale, data);
    await deliver(template, { from: mailSender(loadEnv()), to, subject, text, html, messageId, date });
  } catch (error) {
    // Every failed attempt counts: an alert sees an outage at its first refusal, not hours later.
    mailFailed.inc({ template });
    const reason = error instanceof Error ? error.message : String(error);
    const refused = refusedForGood(error);
    if (refused || lastAttempt) givenUp(template, attempt, reason);
    else logger().warn({ template, attempt }, `Sending the ${template} email failed, trying again later: ${reason}`);
    throw refused ? new FinalJobFailure(reason, { cause: error }) : error;
  }
  mailSent.inc({ template });
  // The template only: the message itself carries links with tokens.
  logger().info({ template, attempt }, "Email sent");
}

/**
 * Whether the mail server refused this message itself for good: a permanent (5xx) answer to
 * its recipient or its content. Trying again would be refused the same way. A 5xx elsewhere
 * (signing in, the sender) is the server's configuration, which an operator can mend while
 * the message waits, as are a 4xx and a connection that failed.
 */
function refusedForGood(error: unknown): boolean {
  const { responseCode, command } = error as { responseCode?: unknown; command?: unknown };
  return (
    typeof responseCode === "number" &&
    responseCode >= 500 &&
    responseCode < 600 &&
    (command === "RCPT TO" || command === "DATA")
  );
}

/**
 * One email given up on after its last attempt, or at the first when it was refused for good.
 * It goes to the error hook (and the log at level error), without recipient or content.
 */
function givenUp(template: TemplateName, attempts: number, reason: string): void {
  const tries = attempts === 1 ? "1 attempt" : `${attempts} attempts`;
  reportError(new Error(`The ${template} email was not sent after ${tries}: ${reason}`), "Email not sent");
}

async function deliver(
  template: TemplateName,
  message: { from: string; to: string; subject: string; text: string; html: string; messageId: string; date: string },
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
