import { useEffect, useId, useMemo, useRef, useState } from "react";
import { useTranslation } from "~/lib/translations";
import { useNavigate } from "react-router";
import { Icon } from "~/components/Icon";
import { canOpen, pages } from "~/config/navigation";
import { navigateTo } from "~/lib/navigate";
import { useLocalize, useRootData } from "~/lib/use-root-data";

/**
 * Ctrl/Cmd+K palette over the pages this visitor may open. A native <dialog> gives focus
 * trapping and Escape; the input is a combobox driving a listbox with the arrow keys.
 */
export function SearchPalette() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const localize = useLocalize();
  const user = useRootData()?.user ?? null;
  const dialog = useRef<HTMLDialogElement>(null);
  const listId = useId();
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  // The list is only rendered while the palette is open: no page pays for it on the server.
  const [isOpen, setIsOpen] = useState(false);
  // The shortcut's name on this keyboard; the server cannot know it, so it says Ctrl first.
  const [onMac, setOnMac] = useState(false);
  useEffect(() => setOnMac(/Mac|iPhone|iPad/.test(navigator.platform)), []);

  const results = useMemo(() => {
    if (!isOpen) return [];
    const needle = query.trim().toLocaleLowerCase();
    return pages
      .filter((page) => canOpen(page.access, user))
      .map((page) => ({ ...page, title: t(page.titleKey) }))
      .filter((page) => !needle || page.title.toLocaleLowerCase().includes(needle) || page.path.includes(needle));
  }, [isOpen, query, user, t]);

  function open() {
    setQuery("");
    setActive(0);
    setIsOpen(true);
  }

  // Opened once its content is there, so the dialog focuses the search field.
  useEffect(() => {
    if (isOpen && !dialog.current?.open) dialog.current?.showModal();
  }, [isOpen]);

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

  function onInputKey(event: React.KeyboardEvent) {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((i) => (results.length ? (i + step + results.length) % results.length : 0));
    } else if (event.key === "Enter") {
      event.preventDefault();
      const page = results[active];
      if (page) go(page.path);
    }
  }

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
        onClose={() => setIsOpen(false)}
        className="m-auto mt-[15vh] w-[calc(100%-2rem)] max-w-lg rounded-xl border border-slate-200 bg-white p-0 text-slate-900 shadow-2xl backdrop:bg-slate-950/50 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100"
      >
        {isOpen ? (
          <>
            <div className="flex items-center gap-2 border-b border-slate-200 px-3 dark:border-slate-700">
              <Icon name="search" className="size-4 text-slate-400" />
              <input
                autoFocus
                role="combobox"
                aria-expanded="true"
                aria-controls={listId}
                aria-activedescendant={results[active] ? `${listId}-${active}` : undefined}
                aria-label={t("search.label")}
                placeholder={t("search.placeholder")}
                value={query}
                onChange={(event) => {
                  setQuery(event.target.value);
                  setActive(0);
                }}
                onKeyDown={onInputKey}
                className="h-12 flex-1 bg-transparent text-sm outline-none placeholder:text-slate-400"
              />
            </div>
            <ul id={listId} role="listbox" aria-label={t("search.results")} className="max-h-72 overflow-y-auto p-2">
              {results.map((page, index) => (
                <li
                  key={page.path}
                  id={`${listId}-${index}`}
                  role="option"
                  aria-selected={index === active}
                  onMouseEnter={() => setActive(index)}
                  onClick={() => go(page.path)}
                  className="flex cursor-pointer items-center justify-between rounded-md px-3 py-2 text-sm aria-selected:bg-primary-50 aria-selected:text-primary-800 dark:aria-selected:bg-primary-950 dark:aria-selected:text-primary-200"
                >
                  {page.title}
                  <span className="text-xs text-slate-600 dark:text-slate-400">{localize(page.path)}</span>
                </li>
              ))}
              {results.length === 0 ? (
                <li className="px-3 py-6 text-center text-sm text-slate-600 dark:text-slate-400">
                  {t("search.empty")}
                </li>
              ) : null}
            </ul>
          </>
        ) : null}
      </dialog>
    </>
  );
}
