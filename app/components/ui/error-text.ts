import { useTranslation } from "~/lib/translations";

/**
 * Form errors travel as codes or keys, and are put into words at render time, in the page
 * language: an error-catalogue code ("INVALID_PASSWORD", "issuer_mismatch") reads `auth:errors.<CODE>`, an i18n
 * key of a loaded namespace ("auth:form.required", "organization:form.slugFormat") reads
 * that key, anything else (zod's own, already localized message) shows as it is.
 */
export function useErrorText() {
  const { t, i18n } = useTranslation("auth");
  return (message: string): string => {
    if (/^[A-Z][A-Z0-9_]+$/.test(message)) {
      const key = `auth:errors.${message}`;
      return i18n.exists(key) ? t(key) : t("auth:errors.UNKNOWN");
    }
    if (/^[a-z]+:[\w.]+$/.test(message) && i18n.exists(message)) return t(message);
    // The catalogue's lower-case codes (better-auth's OIDC discovery errors, e.g. issuer_mismatch).
    if (/^[a-z]+(?:_[a-z]+)+$/.test(message) && i18n.exists(`auth:errors.${message}`))
      return t(`auth:errors.${message}`);
    return message;
  };
}
