/**
 * The ids of the social sign-in providers the app knows, in the order the sign-in buttons and
 * the environment follow. Plain data so the browser side (the icons, the buttons) can import
 * it; the definitions are in app/server/auth/social/providers/, one module per id.
 */
export const SOCIAL_PROVIDER_IDS = [
  "apple",
  "discord",
  "facebook",
  "github",
  "microsoft",
  "google",
  "huggingface",
  "spotify",
  "twitch",
  "twitter",
  "dropbox",
  "kick",
  "linkedin",
  "gitlab",
  "tiktok",
  "reddit",
  "roblox",
  "vk",
  "zoom",
] as const;
export type SocialProviderId = (typeof SOCIAL_PROVIDER_IDS)[number];

export function isSocialProviderId(value: string): value is SocialProviderId {
  return (SOCIAL_PROVIDER_IDS as readonly string[]).includes(value);
}
