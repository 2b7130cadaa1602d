import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/browser";
import { useEffect, useState } from "react";

/**
 * The browser side of passkeys: the ceremonies against /api/auth/passkey, with
 * @simplewebauthn/browser loaded only when one starts (it stays out of the pages' bundles).
 * A failure throws an Error whose message is what to show: a catalogue code from the server
 * or an `auth:passkeys.*` key for what the browser said (see components/ui/error-text).
 */

/** True once hydrated in a browser with WebAuthn; false on the server and without JavaScript. */
export function useWebAuthnSupport(): boolean {
  const [supported, setSupported] = useState(false);
  useEffect(() => setSupported(typeof window.PublicKeyCredential === "function"), []);
  return supported;
}

async function api<T>(path: string, body?: unknown): Promise<T> {
  const response = await fetch(
    `/api/auth/passkey/${path}`,
    body === undefined
      ? {}
      : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) },
  );
  const json = (await response.json().catch(() => null)) as (T & { code?: string; email?: string }) | null;
  // SSO_REQUIRED names the address its organization signs in itself (see PasskeySignIn).
  if (!response.ok) throw Object.assign(new Error(json?.code ?? "UNKNOWN"), { email: json?.email });
  return json as T;
}

/** The browser's refusals in words the page has; anything else as it came. */
function explained(error: unknown): Error {
  const name = error instanceof Error ? error.name : "";
  // Chromium says NotAllowedError both for "cancelled" and for "timed out".
  if (name === "NotAllowedError") return new Error("auth:passkeys.cancelled");
  if (name === "InvalidStateError") return new Error("auth:passkeys.alreadyRegistered");
  return error instanceof Error ? error : new Error("UNKNOWN");
}

/** Creates a passkey for the signed-in user, named `name`. */
export async function addPasskey(name: string): Promise<void> {
  const { startRegistration } = await import("@simplewebauthn/browser");
  const optionsJSON = await api<PublicKeyCredentialCreationOptionsJSON>("generate-register-options");
  const response = await startRegistration({ optionsJSON }).catch((error: unknown) => {
    throw explained(error);
  });
  await api("verify-registration", { response, name });
}

/**
 * Signs in with a passkey (the session cookie comes with the answer). With `autofill` the
 * request waits for the person to pick a passkey in the email field's suggestions
 * (conditional mediation); starting another ceremony aborts it with an AbortError.
 */
export async function signInWithPasskey(autofill = false): Promise<void> {
  const { startAuthentication } = await import("@simplewebauthn/browser");
  const optionsJSON = await api<PublicKeyCredentialRequestOptionsJSON>("generate-authenticate-options");
  const response = await startAuthentication({ optionsJSON, useBrowserAutofill: autofill }).catch((error: unknown) => {
    throw explained(error);
  });
  await api("verify-authentication", { response });
}

/** Ends a waiting ceremony (the autofill one, when the page goes away). */
export async function cancelPasskeyRequest(): Promise<void> {
  const { WebAuthnAbortService } = await import("@simplewebauthn/browser");
  WebAuthnAbortService.cancelCeremony();
}

/** Whether the browser can offer passkeys among the email field's suggestions. */
export async function autofillAvailable(): Promise<boolean> {
  return (await window.PublicKeyCredential?.isConditionalMediationAvailable?.()) ?? false;
}
