import type { ComponentProps } from "react";

/** A text field's classes (app.css); utilities given beside it win. */
export const inputClass = "input";

export function Input({ className = "", ...props }: ComponentProps<"input">) {
  return <input className={`${inputClass} ${className}`} {...props} />;
}
