/**
 * The social sign-in providers, one module each beside this one, under the ids listed in
 * ~/lib/social-providers (which the browser side shares). Callers look providers up here;
 * docs/decisions/0022-extending-the-product.md walks through adding one.
 */
import type { SocialProviderId } from "~/lib/social-providers";
import { apple } from "./apple.server";
import { discord } from "./discord.server";
import { dropbox } from "./dropbox.server";
import { facebook } from "./facebook.server";
import { github } from "./github.server";
import { gitlab } from "./gitlab.server";
import { google } from "./google.server";
import { huggingface } from "./huggingface.server";
import { kick } from "./kick.server";
import { linkedin } from "./linkedin.server";
import { microsoft } from "./microsoft.server";
import { reddit } from "./reddit.server";
import { roblox } from "./roblox.server";
import { spotify } from "./spotify.server";
import { tiktok } from "./tiktok.server";
import { twitch } from "./twitch.server";
import { twitter } from "./twitter.server";
import { vk } from "./vk.server";
import { zoom } from "./zoom.server";
import type { ProviderDefinition } from "./define.server";

export { isSocialProviderId, SOCIAL_PROVIDER_IDS, type SocialProviderId } from "~/lib/social-providers";
export {
  idTokenAudiences,
  type FetchProfileContext,
  type ProviderConfig,
  type ProviderDefinition,
  type ProviderEndpoints,
  type ProviderExtras,
  type ProviderTokens,
  type SocialProfile,
} from "./define.server";

/** Every provider by id, in SOCIAL_PROVIDER_IDS order. */
export const SOCIAL_PROVIDERS: Record<SocialProviderId, ProviderDefinition> = {
  apple,
  discord,
  facebook,
  github,
  microsoft,
  google,
  huggingface,
  spotify,
  twitch,
  twitter,
  dropbox,
  kick,
  linkedin,
  gitlab,
  tiktok,
  reddit,
  roblox,
  vk,
  zoom,
};
