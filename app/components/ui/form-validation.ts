import { parseWithZod } from "@conform-to/zod/v4";
import type { z } from "zod";
import { zodErrorMap } from "~/lib/validation";

/**
 * The browser's check of a page form, with the schema the server uses and zod's messages in
 * the page's language. Loaded with the schema on the form's first use (section-form.ts), so
 * zod and conform's zod adapter are not part of any page's first paint.
 */
export function formValidator<Schema extends z.ZodObject>(schema: Schema) {
  return (formData: FormData, locale: string) => parseWithZod(formData, { schema, error: zodErrorMap(locale) });
}
