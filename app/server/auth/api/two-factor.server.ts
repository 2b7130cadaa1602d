/**
 * /api/auth/two-factor/* (better-auth's two-factor plugin's requests and answers, with the
 * stricter rules of docs/decisions/0015). The enable, disable, URI and backup-code calls need
 * a session; the verify and send calls take the pending sign-in's cookie or a session.
 */
import { fail } from "~/server/errors.server";
import {
  disableTwoFactor,
  enableInput,
  enableTwoFactor,
  getTotpURI,
  passwordInput,
  regenerateBackupCodes,
  secondStepCaller,
  sendOtp,
  sendOtpInput,
  verifyBackupCodeInput,
  verifyCodeInput,
  verifySecondStep,
} from "../two-factor.server";
import { endpoint, type EndpointContext } from "~/server/endpoint.server";

type VerifyContext = EndpointContext<{ code: string; trustDevice?: boolean }, unknown>;

/** The three verify calls differ only in the kind of code. */
function verifyHandler(kind: "totp" | "otp" | "backup-code") {
  return async ({ request, body, meta, cookies, session }: VerifyContext) => {
    const caller = await secondStepCaller(request, await session());
    const { token, user, setCookies } = await verifySecondStep(caller, kind, body, meta);
    cookies.push(...setCookies);
    return { token, user };
  };
}

export const endpoints = [
  endpoint({
    method: "POST",
    path: "/two-factor/enable",
    session: "required",
    body: enableInput,
    async handler({ body, meta, cookies, auth }) {
      const result = await enableTwoFactor(auth, body, meta);
      if (result.method === "otp") {
        cookies.push(...result.session.setCookies);
        return { method: "otp" };
      }
      return result;
    },
  }),

  endpoint({
    method: "POST",
    path: "/two-factor/get-totp-uri",
    session: "required",
    body: passwordInput,
    async handler({ body, meta, auth }) {
      return { totpURI: await getTotpURI(auth, body.password, meta) };
    },
  }),

  endpoint({
    method: "POST",
    path: "/two-factor/disable",
    body: passwordInput,
    async handler({ body, meta, cookies, session }) {
      // From the store, not the cookie cache: the session must still exist.
      const auth = await session({ disableCookieCache: true });
      if (!auth) fail("UNAUTHORIZED");
      const { setCookies } = await disableTwoFactor(auth, body.password, meta);
      cookies.push(...setCookies);
      return { status: true };
    },
  }),

  endpoint({
    method: "POST",
    path: "/two-factor/generate-backup-codes",
    session: "required",
    body: passwordInput,
    async handler({ body, meta, auth }) {
      return { status: true, backupCodes: await regenerateBackupCodes(auth, body.password, meta) };
    },
  }),

  endpoint({ method: "POST", path: "/two-factor/verify-totp", body: verifyCodeInput, handler: verifyHandler("totp") }),
  endpoint({ method: "POST", path: "/two-factor/verify-otp", body: verifyCodeInput, handler: verifyHandler("otp") }),
  endpoint({
    method: "POST",
    path: "/two-factor/verify-backup-code",
    body: verifyBackupCodeInput,
    handler: verifyHandler("backup-code"),
  }),

  endpoint({
    method: "POST",
    path: "/two-factor/send-otp",
    body: sendOtpInput,
    async handler({ request, meta, session }) {
      await sendOtp(await secondStepCaller(request, await session()), meta);
      return { status: true };
    },
  }),
];
