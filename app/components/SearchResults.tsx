import { useEffect, useId, useMemo, useRef, useState, type RefObject } from "react";
import { Icon } from "~/components/Icon";
import { canOpen, pages } from "~/config/navigation";
import { useTranslation } from "~/lib/translations";
import { useLocalize, useRootData } from "~/lib/use-root-data";

/**
 * The search palette's field and results: the pages this visitor may open whose title or
 * address holds the query. Loaded when the palette first opens (decision 0031); the input
 * is a combobox driving a listbox with the arrow keys, Enter opens the active page.
 */
export default function SearchResults({
  dialog,
  onGo,
}: {
  dialog: RefObject<HTMLDialogElement | null>;
  onGo: (path: string) => void;
}) {
  const { t } = useTranslation();
  const localize = useLocalize();
  const user = useRootData()?.user ?? null;
  const listId = useId();
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement>(null);

  // The palette's dialog opens with its content in place, the search field focused.
  useEffect(() => {
    if (!dialog.current?.open) dialog.current?.showModal();
    input.current?.focus();
  }, [dialog]);

  const results = useMemo(() => {
    const needle = query.trim().toLocaleLowerCase();
    return pages
      .filter((page) => canOpen(page.access, user))
      .map((page) => ({ ...page, title: t(page.titleKey) }))
      .filter((page) => !needle || page.title.toLocaleLowerCase().includes(needle) || page.path.includes(needle));
  }, [query, user, t]);

  function onInputKey(event: React.KeyboardEvent) {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((i) => (results.length ? (i + step + results.length) % results.length : 0));
    } else if (event.key === "Enter") {
      event.preventDefault();
      const page = results[active];
      if (page) onGo(page.path);
    }
  }

  return (
    <>
      <div className="flex items-center gap-2 border-b border-slate-200 px-3 dark:border-slate-700">
        <Icon name="search" className="size-4 text-slate-400" />
        <input
          ref={input}
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
            onClick={() => onGo(page.path)}
            className="flex cursor-pointer items-center justify-between rounded-md px-3 py-2 text-sm aria-selected:bg-primary-50 aria-selected:text-primary-800 dark:aria-selected:bg-primary-950 dark:aria-selected:text-primary-200"
          >
            {page.title}
            <span className="text-xs text-slate-600 dark:text-slate-400">{localize(page.path)}</span>
          </li>
        ))}
        {results.length === 0 ? (
          <li className="px-3 py-6 text-center text-sm text-slate-600 dark:text-slate-400">{t("search.empty")}</li>
        ) : null}
      </ul>
    </>
  );
}
