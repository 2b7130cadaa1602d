import { useEffect, useState } from "react";
import { useTranslation } from "~/lib/translations";
import { Icon, type IconName } from "~/components/Icon";
import { subscribeToasts, TOAST_DURATION, TOAST_EXIT_MS, TOAST_LIMIT, type ToastItem } from "~/lib/toast";

const icons: Record<ToastItem["type"], IconName> = { success: "check-circle", error: "alert", info: "info" };
const closeClass =
  "absolute top-3 right-3 cursor-pointer rounded p-1 text-slate-600 dark:text-slate-400 hover:bg-slate-100 hover:text-slate-900 dark:hover:bg-slate-800 dark:hover:text-slate-100";
const tones: Record<ToastItem["type"], string> = {
  success: "text-primary-600 dark:text-primary-400",
  error: "text-red-600 dark:text-red-400",
  info: "text-slate-600 dark:text-slate-300",
};

/**
 * Bottom-right toast stack. The server's flashed toast is part of the first render, so it shows
 * without JavaScript too; then CSS hides it after the duration and the close box removes it.
 */
export function Toaster({ serverToast }: { serverToast: ToastItem | null }) {
  const { t } = useTranslation();
  const [items, setItems] = useState<ToastItem[]>(serverToast ? [serverToast] : []);
  const [closing, setClosing] = useState<Set<string>>(new Set());

  useEffect(() => subscribeToasts((item) => setItems((list) => [item, ...list.filter((t) => t.id !== item.id)])), []);

  // A toast flashed by a later navigation arrives through the root loader.
  useEffect(() => {
    if (serverToast) setItems((list) => (list.some((t) => t.id === serverToast.id) ? list : [serverToast, ...list]));
  }, [serverToast]);

  function close(id: string) {
    setClosing((set) => new Set(set).add(id));
    setTimeout(() => {
      setItems((list) => list.filter((t) => t.id !== id));
      setClosing((set) => {
        const next = new Set(set);
        next.delete(id);
        return next;
      });
    }, TOAST_EXIT_MS);
  }

  const visible = items.slice(0, TOAST_LIMIT);
  return (
    <section
      aria-label={t("toast.region")}
      className="pointer-events-none fixed right-4 bottom-4 z-50 w-[calc(100%-2rem)] sm:w-96"
    >
      <ol className="relative">
        {visible.map((item, index) => (
          <ToastCard
            key={item.id}
            item={item}
            index={index}
            closing={closing.has(item.id)}
            onClose={() => close(item.id)}
          />
        ))}
      </ol>
    </section>
  );
}

function ToastCard({
  item,
  index,
  closing,
  onClose,
}: {
  item: ToastItem;
  index: number;
  closing: boolean;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const boxId = `toast-${item.id}`;
  return (
    <li
      data-toast
      data-state={closing ? "closed" : "open"}
      className="toast pointer-events-auto absolute right-0 bottom-0 w-full origin-bottom transition-all duration-200 motion-reduce:transition-none data-[state=closed]:translate-x-4 data-[state=closed]:opacity-0"
      style={{
        // Each older toast sits 16px higher and 5% smaller than the one in front of it.
        transform: `translateY(-${index * 16}px) scale(${1 - index * 0.05})`,
        zIndex: TOAST_LIMIT - index,
      }}
    >
      {/* Without JavaScript the label toggles this box and CSS hides the toast. */}
      <input
        id={boxId}
        type="checkbox"
        className="toast-dismiss sr-only"
        onChange={onClose}
        tabIndex={-1}
        aria-hidden
      />
      {/* The live region is inside the item: a list's children must stay list items. */}
      <div
        role={item.type === "error" ? "alert" : "status"}
        className="relative overflow-hidden rounded-lg border border-slate-200 bg-white p-4 pr-10 shadow-lg dark:border-slate-700 dark:bg-slate-900"
      >
        <div className="flex gap-3">
          <Icon name={icons[item.type]} className={`mt-0.5 size-5 shrink-0 ${tones[item.type]}`} />
          <div className="min-w-0 flex-1">
            <p className="text-sm font-semibold text-slate-900 dark:text-slate-100">{item.title}</p>
            {item.description ? (
              <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{item.description}</p>
            ) : null}
            {item.action ? (
              <button
                type="button"
                onClick={() => {
                  item.action?.onClick();
                  onClose();
                }}
                className="mt-2 rounded-md bg-primary-700 px-3 py-1 text-sm font-medium text-white hover:bg-primary-800"
              >
                {item.action.label}
              </button>
            ) : null}
          </div>
        </div>
        {/* With JavaScript a real button; without it a label that ticks the box above. */}
        <button
          type="button"
          onClick={onClose}
          aria-label={t("toast.close")}
          title={t("toast.close")}
          className={`js-only ${closeClass}`}
        >
          <Icon name="x" />
        </button>
        <label
          htmlFor={boxId}
          aria-label={t("toast.close")}
          title={t("toast.close")}
          className={`no-js-only ${closeClass}`}
        >
          <Icon name="x" />
        </label>
        <div
          className="toast-progress absolute bottom-0 left-0 h-1 w-full bg-primary-500/70"
          style={{ animationDuration: `${TOAST_DURATION}ms` }}
          onAnimationEnd={onClose}
        />
      </div>
    </li>
  );
}
