import { SecondFactorRequired } from "../sign-in.server";

/**
 * Runs a sign-in; when the user's second step is due, answers better-auth's
 * `{twoFactorRedirect, twoFactorMethods}` instead (the pending cookie goes into `cookies`).
 */
export async function secondStepOr<T>(
  signIn: () => Promise<T>,
  cookies: string[],
): Promise<T | { twoFactorRedirect: true; twoFactorMethods: string[] }> {
  try {
    return await signIn();
  } catch (error) {
    if (!(error instanceof SecondFactorRequired)) throw error;
    cookies.push(...error.setCookies);
    return { twoFactorRedirect: true, twoFactorMethods: error.methods };
  }
}
