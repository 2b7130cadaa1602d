import type { Submission, SubmissionResult } from "@conform-to/react";
import { data, type MiddlewareFunction, type RouterContextProvider } from "react-router";
import { FORBIDDEN_CHARACTERS } from "~/lib/text";
import { isAppError, type ErrorCode } from "~/server/errors.server";
import { getInstance, getLocale } from "~/server/i18n.server";

/**
 * The page actions' shared plumbing: a translator for the request's language, and the one
 * way an `AppError` from a service becomes a form error. Errors travel as catalogue codes;
 * the page puts them into words (components/ui/error-text) in its language.
 */
export function authT(context: Readonly<RouterContextProvider>) {
  return getInstance(context).getFixedT(getLocale(context), "auth");
}

/** Password inputs (and an identity provider's client secret) are never sent back to the browser. */
export const SECRET_FIELDS = ["password", "currentPassword", "newPassword", "confirmPassword", "clientSecret"];

/** A submission that failed validation, answered 400 with its field errors. */
export function invalid<Extra extends object>(submission: Submission<unknown>, extra?: Extra) {
  return data(
    { ...extra, result: submission.reply({ hideFields: SECRET_FIELDS }) } as Extra & {
      result: SubmissionResult;
    },
    { status: 400 },
  );
}

/** The service refusals shown next to one field of a form, by error code. */
export type FieldErrors = Partial<Record<ErrorCode, string>>;

/**
 * Turns a service's `AppError` into the form's answer with the error's status: next to a
 * field when `fields` maps its code to one, otherwise for the whole form. Anything else is
 * a bug and is rethrown (the error boundary shows it).
 */
export function failed<Extra extends object>(
  submission: Submission<unknown>,
  error: unknown,
  fields: FieldErrors = {},
  extra?: Extra,
) {
  if (!isAppError(error)) throw error;
  const code = error.code ?? "UNKNOWN";
  const field = fields[code as ErrorCode];
  const result = submission.reply(
    field
      ? { fieldErrors: { [field]: [code] }, hideFields: SECRET_FIELDS }
      : { formErrors: [code], hideFields: SECRET_FIELDS },
  );
  return data({ ...extra, result } as Extra & { result: SubmissionResult }, {
    status: error.status,
    headers: error.headers,
  });
}

/** A service's `AppError` as a toast title in the page's language; anything else is a bug and is rethrown. */
export function errorTitle(t: ReturnType<typeof authT>, error: unknown): string {
  if (!isAppError(error)) throw error;
  return t(`errors.${error.code ?? "UNKNOWN"}`, { defaultValue: t("errors.UNKNOWN") });
}

/** Set-Cookie values from a service, as response headers (to merge with a redirect's). */
export function cookieHeaders(setCookies: readonly string[] | undefined, headers = new Headers()): Headers {
  for (const cookie of setCookies ?? []) headers.append("Set-Cookie", cookie);
  return headers;
}

const FORM_TYPE = /^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i;

/**
 * Page actions and resource routes read forms, nothing else. A state-changing request whose
 * body is not a readable form (JSON, XML, a broken multipart body, none at all) is answered
 * 415 or 400 with the error page before any action runs, instead of failing inside
 * `request.formData()` as a 500. So is a form with a character no field takes (a control
 * character, a bidi override: app/lib/text.ts) in a name or a value, which no browser sends
 * from what a person typed; NUL alone used to reach PostgreSQL and fail as a 500.
 * /api/auth reads its bodies itself.
 */
export const formBodyMiddleware: MiddlewareFunction<Response> = async ({ request, url, context }) => {
  if (request.method === "GET" || request.method === "HEAD") return;
  if (url.pathname.startsWith("/api/auth/")) return;
  const type = request.headers.get("Content-Type") ?? "";
  if (!FORM_TYPE.test(type)) throw data({ message: getInstance(context).t("error.unreadableForm") }, { status: 415 });
  const form = await request
    .clone()
    .formData()
    .catch(() => null);
  if (!form) throw data({ message: getInstance(context).t("error.unreadableForm") }, { status: 400 });
  for (const [name, value] of form) {
    if (FORBIDDEN_CHARACTERS.test(name) || (typeof value === "string" && FORBIDDEN_CHARACTERS.test(value))) {
      throw data({ message: getInstance(context).t("error.forbiddenCharacters") }, { status: 400 });
    }
  }
};
