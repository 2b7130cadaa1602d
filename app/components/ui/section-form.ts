import { parse, useForm, type DefaultValue, type Submission, type SubmissionResult } from "@conform-to/react";
import { useEffect, useRef, useState } from "react";
import { useActionData, useFetcher } from "react-router";
import type { z } from "zod";
import { useLocale } from "~/lib/use-root-data";

/** A form's schema, fetched when needed: `() => import("~/lib/auth-forms").then((m) => m.signInSchema)`. */
export type SchemaLoader<Schema extends z.ZodObject> = () => Promise<Schema>;

type Validate<Schema extends z.ZodObject> = (
  formData: FormData,
  locale: string,
) => Submission<z.input<Schema>, string[], z.output<Schema>>;

/**
 * A page's form, checked in the browser with the schema the server uses (its messages in the
 * page's language): when submitted, then on every input. `lastResult` is the server's answer.
 *
 * The schema, zod and the check itself load on the form's first use (focus inside it), not
 * with the page: they are a third of a hydrated page's JavaScript, and a form not yet used
 * needs none of it (decision 0031). Until they have arrived a submission goes to the server as
 * it does without JavaScript, and the server's check answers in the same words. For the same
 * reason the inputs carry no constraint attributes (required, maxlength…): the server's render
 * has no schema to take them from that the browser's first render would also have.
 */
export function usePageForm<Schema extends z.ZodObject>(
  loadSchema: SchemaLoader<Schema>,
  options: {
    id?: string;
    lastResult?: SubmissionResult<string[]> | null;
    defaultValue?: DefaultValue<z.input<Schema>>;
    shouldValidate?: "onSubmit" | "onBlur";
  } = {},
) {
  const locale = useLocale();
  const [validate, setValidate] = useState<Validate<Schema> | null>(null);
  const [form, fields] = useForm<z.input<Schema>, z.output<Schema>, string[]>({
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    ...options,
    onValidate: ({ formData }) =>
      // Not checked here yet: passed on to the server's check. Its value is never read here.
      validate?.(formData, locale) ??
      (parse(formData, { resolve: (value) => ({ value }) }) as Submission<z.input<Schema>, string[], z.output<Schema>>),
  });
  const load = useRef(loadSchema);
  useEffect(() => {
    const element = document.getElementById(form.id);
    if (!element) return;
    const onFirstUse = () => {
      void Promise.all([load.current(), import("./form-validation")]).then(([schema, { formValidator }]) =>
        setValidate(() => formValidator(schema)),
      );
    };
    // Focused before the page hydrated: that was its first use.
    if (element.contains(document.activeElement)) return onFirstUse();
    element.addEventListener("focusin", onFirstUse, { once: true });
    return () => element.removeEventListener("focusin", onFirstUse);
  }, [form.id]);
  return [form, fields] as const;
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
  loadSchema: SchemaLoader<Schema>,
  defaultValue?: DefaultValue<z.input<Schema>>,
) {
  const fetcher = useFetcher({ key });
  const actionData = useActionData() as KeyedResult;
  const fetched = fetcher.data as KeyedResult;
  const lastResult = fetched?.result ?? (actionData?.key === key ? actionData.result : undefined);
  const [form, fields] = usePageForm(loadSchema, { id: `form-${key}`, lastResult, defaultValue });
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
