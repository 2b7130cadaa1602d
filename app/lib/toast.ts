/** The client side of toasts: a tiny store any component can push to. */
export type ToastType = "success" | "error" | "info";
export interface ToastItem {
  id: string;
  type: ToastType;
  title: string;
  description?: string;
  action?: { label: string; onClick: () => void };
}

export const TOAST_DURATION = 5000;
export const TOAST_LIMIT = 5;
export const TOAST_EXIT_MS = 200;

type Listener = (toast: ToastItem) => void;
const listeners = new Set<Listener>();

export function toast(item: Omit<ToastItem, "id"> & { id?: string }) {
  const full = { id: item.id ?? crypto.randomUUID(), ...item } as ToastItem;
  for (const listener of listeners) listener(full);
  return full.id;
}

export function subscribeToasts(listener: Listener) {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}
