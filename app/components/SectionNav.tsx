import { useEffect, useRef } from "react";
import { useLocation } from "react-router";
import { AppNavLink } from "~/components/AppLink";

export type Section = { to: string; label: string; end?: boolean };

/**
 * The sections of one area (account settings, an organization) as a row of tabs, each a
 * plain link to its own address. On a narrow screen the row scrolls sideways inside itself
 * instead of widening the page.
 */
export function SectionNav({ label, sections }: { label: string; sections: Section[] }) {
  const row = useRef<HTMLElement>(null);
  const { pathname } = useLocation();
  // On a phone the current tab may sit past the row's right edge: bring it into view. Before
  // (or without) JavaScript, `scroll-initial-target` asks the browser for the same on its first layout.
  useEffect(() => {
    const current = row.current?.querySelector<HTMLElement>("[aria-current=page]");
    if (row.current && current) row.current.scrollLeft = current.offsetLeft - row.current.clientWidth / 3;
  }, [pathname]);
  return (
    <nav
      ref={row}
      aria-label={label}
      className="relative -mx-4 mb-6 scroll-px-16 overflow-x-auto border-b border-slate-200 px-4 dark:border-slate-800"
    >
      <ul className="flex gap-1 whitespace-nowrap">
        {sections.map((section) => (
          <li key={section.to}>
            <AppNavLink
              to={section.to}
              end={section.end}
              prefetch="intent"
              className="-mb-px inline-block border-b-2 border-transparent px-3 py-2 text-sm text-slate-600 hover:text-slate-900 aria-[current=page]:border-primary-600 aria-[current=page]:font-medium aria-[current=page]:text-slate-900 aria-[current=page]:[scroll-initial-target:nearest] dark:text-slate-400 dark:hover:text-white dark:aria-[current=page]:text-white"
            >
              {section.label}
            </AppNavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
