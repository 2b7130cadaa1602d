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
  | "brand-apple"
  | "brand-discord"
  | "brand-facebook"
  | "brand-github"
  | "brand-microsoft"
  | "brand-google"
  | "brand-huggingface"
  | "brand-spotify"
  | "brand-twitch"
  | "brand-twitter"
  | "brand-dropbox"
  | "brand-kick"
  | "brand-linkedin"
  | "brand-gitlab"
  | "brand-tiktok"
  | "brand-reddit"
  | "brand-roblox"
  | "brand-vk"
  | "brand-zoom";

/** Icons come from one SVG sprite that ships with the app: no icon service, one cached file. */
export function Icon({ name, className = "size-4", title }: { name: IconName; className?: string; title?: string }) {
  return (
    <svg className={className} aria-hidden={title ? undefined : true} role={title ? "img" : undefined}>
      {title ? <title>{title}</title> : null}
      <use href={`${spriteHref}#${name}`} />
    </svg>
  );
}
