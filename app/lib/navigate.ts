import { isExternalUrl } from "./safe-redirect";

/**
 * Client navigation helper. Leaving the site must be asked for explicitly, so a stray
 * user-supplied URL can never send someone elsewhere by accident.
 */
export function navigateTo(
  navigate: (to: string) => void | Promise<void>,
  to: string,
  options: { external?: boolean } = {},
  location: Pick<Location, "assign"> = window.location,
): void {
  if (isExternalUrl(to)) {
    if (!options.external) {
      throw new Error(`Navigating to an external URL requires { external: true }: ${to}`);
    }
    location.assign(to);
    return;
  }
  void navigate(to);
}
