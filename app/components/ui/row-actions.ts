import type { FormEvent, MouseEvent } from "react";
import { useFormAction, useNavigate, useSubmit } from "react-router";

/**
 * The actions of a long list's rows (an organization's members, the admin's users): plain
 * anchors (`data-dialog`) and forms (`data-row-form`), opened and submitted in the app by one
 * handler on the list, as a Link or a Form would. A Link or Form per row resolves its address
 * against the matched routes on every render: that was half the cost of rendering a row, and
 * the largest share of such a page's memory churn. Without JavaScript the anchors and forms
 * work as they are. `action` is where the rows' forms post: this route, as a Form's default.
 */
export function useRowActions() {
  const navigate = useNavigate();
  const submit = useSubmit();
  const action = useFormAction();

  const onClick = (event: MouseEvent) => {
    const link = (event.target as Element).closest("a[data-dialog]");
    if (!link || event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return; // a new tab or window
    event.preventDefault();
    const menu = link.closest("details[data-menu]");
    menu?.removeAttribute("open");
    // The link is hidden with its menu: the menu's button holds focus, and has it back after.
    menu?.querySelector("summary")?.focus();
    navigate(link.getAttribute("href")!, { preventScrollReset: true });
  };

  const onSubmit = (event: FormEvent) => {
    const form = event.target as HTMLFormElement;
    if (event.defaultPrevented || !form.matches("form[data-row-form]")) return;
    event.preventDefault();
    // A row's menu (`details[data-menu]`) closes once one of its items is chosen.
    form.closest("details[data-menu]")?.removeAttribute("open");
    void submit(submitted(event), { preventScrollReset: true });
  };

  return { action, onClick, onSubmit };
}

/** What a submit event sends: the button pressed (its name and value name the intent), else its form. */
export function submitted(event: FormEvent): HTMLButtonElement | HTMLFormElement {
  return (
    ((event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null) ?? (event.target as HTMLFormElement)
  );
}
