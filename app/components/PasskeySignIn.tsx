import { useEffect, useState } from "react";
import { navigation } from "~/config/navigation";
import { useTranslation } from "~/lib/translations";
import { Icon } from "~/components/Icon";
import { buttonClass, Spinner } from "~/components/ui/Button";
import { FormErrors } from "~/components/ui/FormErrors";
import { autofillAvailable, cancelPasskeyRequest, signInWithPasskey, useWebAuthnSupport } from "~/lib/passkeys";
import { safeRedirect } from "~/lib/safe-redirect";
import { useLocalize } from "~/lib/use-root-data";

/**
 * Where a passkey sign-in lands: the page's `redirect` target when it is on this site, else
 * home. A full page load, so every loader (the navbar's too) sees the new session.
 */
function landAfterSignIn(home: string) {
  const redirect = new URLSearchParams(window.location.search).get("redirect");
  window.location.assign(safeRedirect(redirect, [window.location.origin]) ?? home);
}

/**
 * A passkey of an address whose organization requires single sign-on: on to its single
 * sign-on page, which says why, with the address filled in.
 */
function toSingleSignOn(failure: unknown, ssoPage: string): boolean {
  if (!(failure instanceof Error) || failure.message !== "SSO_REQUIRED") return false;
  const query = new URLSearchParams({
    error: "sso_required",
    email: (failure as Error & { email?: string }).email ?? "",
  });
  const redirect = new URLSearchParams(window.location.search).get("redirect");
  if (redirect) query.set("redirect", redirect);
  window.location.assign(`${ssoPage}?${query}`);
  return true;
}

/**
 * "Sign in with a passkey" under the password form, and passkeys offered among the email
 * field's suggestions (conditional UI: the field says `autocomplete="username webauthn"`).
 * Only in a hydrated page of a browser with WebAuthn: without JavaScript nothing is drawn
 * and the password form is the page.
 */
export function PasskeySignIn() {
  const { t } = useTranslation("auth");
  const supported = useWebAuthnSupport();
  const localize = useLocalize();
  const home = localize(navigation.signedInRedirect);
  const ssoPage = localize("/signin/sso");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  // Conditional UI: waits, while the page is open, for the person to pick a passkey.
  useEffect(() => {
    if (!supported) return;
    let left = false;
    void (async () => {
      if (!(await autofillAvailable()) || left) return;
      try {
        await signInWithPasskey(true);
        landAfterSignIn(home);
      } catch (failure) {
        if (toSingleSignOn(failure, ssoPage)) return;
        // AbortError: the button's ceremony took over, or the page went away.
        if (!left && (failure as Error).name !== "AbortError") setError((failure as Error).message);
      }
    })();
    return () => {
      left = true;
      void cancelPasskeyRequest();
    };
  }, [supported, home, ssoPage]);

  async function signIn() {
    setPending(true);
    setError(null);
    try {
      await signInWithPasskey();
      landAfterSignIn(home);
    } catch (failure) {
      if (toSingleSignOn(failure, ssoPage)) return;
      setError((failure as Error).message);
      setPending(false);
    }
  }

  if (!supported) return null;
  return (
    <div className="flex flex-col gap-3" data-testid="passkey-sign-in">
      <FormErrors errors={error ? [error] : undefined} />
      <button
        type="button"
        onClick={() => void signIn()}
        disabled={pending}
        aria-busy={pending || undefined}
        className={buttonClass("secondary", "w-full")}
      >
        {pending ? <Spinner /> : <Icon name="shield" />}
        {pending ? t("passkeys.signInPending") : t("passkeys.signIn")}
      </button>
    </div>
  );
}
