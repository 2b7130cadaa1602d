import { useForm, type DefaultValue, type SubmissionResult } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { useActionData, useFetcher } from "react-router";
import type { z } from "zod";
import { useLocale } from "~/lib/use-root-data";
import { zodErrorMap } from "~/lib/validation";

/**
 * A page's form, checked in the browser with the schema the server uses (its messages in the
 * page's language): when submitted, then on every input. `lastResult` is the server's answer.
 */
export function usePageForm<Schema extends z.ZodObject>(
  schema: Schema,
  options: {
    id?: string;
    lastResult?: SubmissionResult<string[]> | null;
    defaultValue?: DefaultValue<z.input<Schema>>;
  } = {},
) {
  const locale = useLocale();
  return useForm<z.input<Schema>, z.output<Schema>, string[]>({
    ...options,
    constraint: getZodConstraint(schema),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema, error: zodErrorMap(locale) }),
  });
}

/** What a page action with several forms answers a failed one with: the form's key and its result. */
type KeyedResult = { key?: string; result?: SubmissionResult<string[]> } | undefined;

/**
 * One of several forms on a page: a fetcher under `key`, so forms submit independently and
 * keep their own errors. Without JavaScript the same markup is a plain POST form and the
 * action data (for this key) brings the errors back.
 */
export function useSectionForm<Schema extends z.ZodObject>(
  key: string,
  schema: Schema,
  defaultValue?: DefaultValue<z.input<Schema>>,
) {
  const fetcher = useFetcher({ key });
  const actionData = useActionData() as KeyedResult;
  const fetched = fetcher.data as KeyedResult;
  const lastResult = fetched?.result ?? (actionData?.key === key ? actionData.result : undefined);
  const [form, fields] = usePageForm(schema, { id: `form-${key}`, lastResult, defaultValue });
  // Refused by the server (not just by the browser's own validation).
  const rejected = Object.values(lastResult?.error ?? {}).some((errors) => errors?.length);
  return { fetcher, form, fields, pending: fetcher.state !== "idle", rejected };
}

/**
 * A small form repeated on every row of a list (a member's role, a team member's Remove):
 * its fetcher under `key` and the errors the server answered, as useSectionForm gives, but
 * without conform's form state, which costs too much on the server when a page renders it
 * once per row. For forms with nothing to check in the browser: hidden ids and a select.
 */
export function useRowForm(key: string) {
  const fetcher = useFetcher({ key });
  const actionData = useActionData() as KeyedResult;
  const result = (fetcher.data as KeyedResult)?.result ?? (actionData?.key === key ? actionData.result : undefined);
  const errors = Object.values(result?.error ?? {}).flatMap((list) => list ?? []);
  return { fetcher, errors, pending: fetcher.state !== "idle" };
}
