import type { SocialProviderId } from "~/lib/social-providers";
import spriteHref from "./icons/sprite.svg?url";

export type IconName =
  | "logo"
  | "menu"
  | "x"
  | "sun"
  | "moon"
  | "monitor"
  | "globe"
  | "search"
  | "user"
  | "log-out"
  | "shield"
  | "check"
  | "chevron-down"
  | "arrow-right"
  | "refresh"
  | "home"
  | "credit-card"
  | "dashboard"
  | "database"
  | "file-text"
  | "layers"
  | "settings"
  | "info"
  | "check-circle"
  | "alert"
  | "lock"
  | "users"
  | "zap"
  | "languages"
  // Each social provider's logo, a `brand-<id>` symbol in the sprite.
  | `brand-${SocialProviderId}`;

/** Icons come from one SVG sprite that ships with the app: no icon service, one cached file. */
export function Icon({ name, className = "size-4", title }: { name: IconName; className?: string; title?: string }) {
  return (
    <svg className={className} aria-hidden={title ? undefined : true} role={title ? "img" : undefined}>
      {title ? <title>{title}</title> : null}
      <use href={`${spriteHref}#${name}`} />
    </svg>
  );
}
