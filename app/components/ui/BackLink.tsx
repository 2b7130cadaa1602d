import { AppLink } from "~/components/AppLink";
import { Icon } from "~/components/Icon";

/** The way back from a detail page to its list, above the page's first section. */
export function BackLink({ to, children }: { to: string; children: string }) {
  return (
    <p>
      <AppLink
        to={to}
        className="inline-flex items-center gap-1 text-sm text-primary-700 hover:underline dark:text-primary-300"
      >
        <Icon name="arrow-right" className="size-3 shrink-0 rotate-180" />
        {children}
      </AppLink>
    </p>
  );
}
