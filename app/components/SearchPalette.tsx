import { lazy, Suspense, useEffect, useRef, useState, useSyncExternalStore } from "react";
import { useTranslation } from "~/lib/translations";
import { useNavigate } from "react-router";
import { Icon } from "~/components/Icon";
import { navigateTo } from "~/lib/navigate";
import { useLocalize } from "~/lib/use-root-data";

const SearchResults = lazy(() => import("~/components/SearchResults"));

/**
 * Whether the palette is open, kept outside its component. A navigation changes the address
 * before React draws the new page, and a page with its own Navbar brings a new palette: the
 * shortcut pressed in between reaches the old one, and the new one must open all the same.
 * Only the browser sets it; the server always draws the palette closed.
 */
let paletteOpen = false;
const listeners = new Set<() => void>();
function setPaletteOpen(open: boolean) {
  if (open === paletteOpen) return;
  paletteOpen = open;
  for (const listener of listeners) listener();
}
function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Ctrl/Cmd+K palette over the pages this visitor may open. A native <dialog> gives focus
 * trapping and Escape; its field and results (SearchResults) load when it first opens.
 */
export function SearchPalette() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const localize = useLocalize();
  const dialog = useRef<HTMLDialogElement>(null);
  // The field and list are only rendered while the palette is open: no page pays for them on
  // the server, nor loads their code before the palette is first opened.
  const isOpen = useSyncExternalStore(
    subscribe,
    () => paletteOpen,
    () => false,
  );
  // The shortcut's name on this keyboard; the server cannot know it, so it says Ctrl first.
  const [onMac, setOnMac] = useState(false);
  useEffect(() => setOnMac(/Mac|iPhone|iPad/.test(navigator.platform)), []);

  // The dialog opens when its content has arrived (SearchResults shows it), so keys typed at
  // once reach the search field.
  function open() {
    setPaletteOpen(true);
  }

  function go(path: string) {
    dialog.current?.close();
    navigateTo(navigate, localize(path));
  }

  useEffect(() => {
    function onKey(event: KeyboardEvent) {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "k") {
        event.preventDefault();
        if (dialog.current?.open) dialog.current.close();
        else open();
      }
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });

  return (
    <>
      <button
        type="button"
        onClick={open}
        aria-keyshortcuts="Control+K Meta+K"
        className="js-only flex items-center gap-2 rounded-md border border-slate-200 px-2 py-1.5 text-sm text-slate-600 dark:text-slate-400 hover:border-slate-300 dark:border-slate-700 dark:hover:border-slate-600"
      >
        <Icon name="search" />
        <span className="sr-only md:not-sr-only">{t("search.button")}</span>
        <kbd className="hidden rounded bg-slate-100 px-1.5 text-xs md:inline dark:bg-slate-800">
          {onMac ? "⌘K" : "Ctrl K"}
        </kbd>
      </button>
      <dialog
        ref={dialog}
        aria-label={t("search.label")}
        onClick={(event) => event.target === dialog.current && dialog.current.close()}
        onClose={() => setPaletteOpen(false)}
        className="m-auto mt-[15vh] w-[calc(100%-2rem)] max-w-lg rounded-xl border border-slate-200 bg-white p-0 text-slate-900 shadow-2xl backdrop:bg-slate-950/50 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100"
      >
        {isOpen ? (
          <Suspense fallback={null}>
            <SearchResults dialog={dialog} onGo={go} />
          </Suspense>
        ) : null}
      </dialog>
    </>
  );
}
