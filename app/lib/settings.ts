/**
 * The sections of account settings, in the order their tabs show: each is a page of its own
 * under /profile, with its own forms and action. `id` names its tab label
 * (`settings.<id>`) and its title (`meta.settings.<id>`).
 */
export const SETTINGS_SECTIONS = [
  { id: "profile", path: "/profile" },
  { id: "email", path: "/profile/email" },
  { id: "security", path: "/profile/security" },
  { id: "sessions", path: "/profile/sessions" },
  { id: "data", path: "/profile/data" },
  { id: "apiKeys", path: "/profile/api-keys" },
] as const;

export type SettingsSection = (typeof SETTINGS_SECTIONS)[number]["id"];

export const settingsPath = (section: SettingsSection): string =>
  SETTINGS_SECTIONS.find((entry) => entry.id === section)!.path;
