import type { ReactNode } from "react";

/**
 * A settings section's cards, one under the other. Forms read best at a line length of their
 * own; a list with columns (`wide`) takes the content's whole width.
 */
export function SettingsPage({ wide = false, children }: { wide?: boolean; children: ReactNode }) {
  return <div className={`flex flex-col gap-8 ${wide ? "" : "max-w-3xl"}`}>{children}</div>;
}
