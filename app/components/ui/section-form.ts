import type { DefaultValue, FormMetadata, SubmissionResult } from "@conform-to/react";
import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { useActionData, useFetcher } from "react-router";
import type { z } from "zod";
import { useLocale } from "~/lib/use-root-data";
import { submitted } from "./row-actions";

/** A form's schema, fetched when needed: `() => import("~/lib/auth-forms").then((m) => m.signInSchema)`. */
export type SchemaLoader<Schema extends z.ZodObject> = () => Promise<Schema>;

/** The check conform's `parseWithZod` makes (form-validation.ts): what of its submission is read here. */
type Validate = (formData: FormData, locale: string) => { status?: "success" | "error"; error?: Errors | null };
type Errors = Record<string, string[] | null | undefined>;
type Values = Record<string, unknown>;

/** What the form shows: the last server answer taken in, the errors, and the initial and current values. */
type FormState = {
  result: SubmissionResult<string[]> | undefined;
  errors: Errors;
  initial: Values;
  values: Values;
  /** Checked since: every field once submitted (or answered by the server), else the fields left (onBlur). */
  submitted: boolean;
  left: ReadonlySet<string>;
};

/** A default value as a form field carries it, as conform writes it: true is "on", a date ISO text. */
function fieldValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(fieldValue);
  if (typeof value === "boolean") return value ? "on" : null;
  if (typeof value === "number" || typeof value === "bigint") return value.toString();
  if (value instanceof Date) return value.toISOString().slice(0, -1);
  return value;
}

/** A form's state before anything was checked: `values` in its fields, `errors` the server answered with. */
function startState(result: SubmissionResult<string[]> | undefined, values: Values, errors: Errors = {}): FormState {
  return { result, errors, initial: values, values, submitted: false, left: new Set() };
}

/** The state once the server's answer `result` is taken in (conform's rules: no initial value = reset). */
function takeResult(state: FormState, result: SubmissionResult<string[]> | undefined, defaults: Values): FormState {
  if (!result) return { ...state, result };
  if (result.initialValue === null) return startState(result, defaults);
  const errors: Errors = {};
  // An error of null keeps the one shown.
  for (const [name, error] of Object.entries(result.error ?? {}))
    if (error ?? state.errors[name]) errors[name] = error ?? state.errors[name];
  return {
    ...state,
    result,
    errors,
    values: (result.initialValue as Values | undefined) ?? state.values,
    submitted: true,
  };
}

/** The form's first field (in document order) with an error, focused as conform does after a refused submission. */
function focusFirstInvalid(form: HTMLFormElement | null, errors: Errors) {
  for (const element of form?.elements ?? [])
    if (element instanceof HTMLElement && "name" in element && errors[element.name as string]?.length) {
      element.focus();
      return;
    }
}

/**
 * A page's form, checked in the browser with the schema the server uses (its messages in the
 * page's language): when submitted, then on every input. `lastResult` is the server's answer.
 *
 * The form's state is this hook's own, not conform's `useForm`: conform's form machinery is
 * 9 KB gzip on every page with a form, for a check that cannot run before the schema has
 * loaded anyway (decision 0031). It gives what conform's prop helpers (`getFormProps`,
 * `getInputProps`…) and the pages read, with conform's ids and rules; the server keeps
 * conform's `parseWithZod` and `reply`, whose results it takes in.
 *
 * The schema, zod and the check itself load on the form's first use (focus inside it), not
 * with the page. Until they have arrived a submission goes to the server as it does without
 * JavaScript, and the server's check answers in the same words. For the same reason the
 * inputs carry no constraint attributes (required, maxlength…): the server's render has no
 * schema to take them from that the browser's first render would also have. A form with no
 * schema (a confirmation) only shows the server's answers.
 */
export function usePageForm<Schema extends z.ZodObject>(
  loadSchema: SchemaLoader<Schema> | null,
  options: {
    id?: string;
    lastResult?: SubmissionResult<string[]> | null;
    defaultValue?: DefaultValue<z.input<Schema>>;
    shouldValidate?: "onSubmit" | "onBlur";
  } = {},
) {
  const locale = useLocale();
  const generatedId = useId();
  const formId = options.id ?? generatedId;
  const lastResult = options.lastResult ?? undefined;
  const defaults = Object.fromEntries(
    Object.entries(options.defaultValue ?? {}).map(([name, value]) => [name, fieldValue(value)]),
  );
  const [kept, setState] = useState<FormState>(() =>
    startState(lastResult, (lastResult?.initialValue as Values | undefined) ?? defaults, lastResult?.error ?? {}),
  );
  // A new answer from the server is taken in during this render, so it shows at once.
  const state = lastResult === kept.result ? kept : takeResult(kept, lastResult, defaults);
  if (state !== kept) setState(state);

  const validate = useRef<Validate | null>(null);
  const readsValues = useRef(false);
  const live = useRef({ state, locale, shouldValidate: options.shouldValidate ?? "onSubmit" });
  live.current = { state, locale, shouldValidate: options.shouldValidate ?? "onSubmit" };

  const load = useRef(loadSchema);
  useEffect(() => {
    const element = document.getElementById(formId);
    if (!(element instanceof HTMLFormElement)) return;
    const onFirstUse = () => {
      const loadSchema = load.current;
      if (!loadSchema) return;
      void Promise.all([loadSchema(), import("./form-validation")]).then(([schema, { formValidator }]) => {
        validate.current = formValidator(schema);
      });
    };
    /** Checks the form again after an input in (or a move out of) the field `name`. */
    const recheck = (name: string, left: boolean) => {
      const { state, locale, shouldValidate } = live.current;
      const leftFields = left && shouldValidate === "onBlur" ? new Set([...state.left, name]) : state.left;
      const checked = state.submitted || leftFields.has(name);
      const values = readsValues.current ? Object.fromEntries(new FormData(element)) : state.values;
      if (!checked || !validate.current) {
        if (leftFields !== state.left || values !== state.values) setState({ ...state, left: leftFields, values });
        return;
      }
      const found = validate.current(new FormData(element), locale).error ?? {};
      const errors: Errors = {};
      for (const field of Object.keys(found))
        if ((state.submitted || leftFields.has(field)) && found[field]) errors[field] = found[field];
      setState({ ...state, errors, left: leftFields, values });
    };
    const onInput = (event: Event) => {
      const name = (event.target as HTMLInputElement).name;
      if (name) recheck(name, false);
    };
    const onLeave = (event: FocusEvent) => {
      const name = (event.target as HTMLInputElement).name;
      if (name && live.current.shouldValidate === "onBlur") recheck(name, true);
    };
    const onReset = () => setState(startState(live.current.state.result, defaults));
    element.addEventListener("input", onInput);
    element.addEventListener("focusout", onLeave);
    element.addEventListener("reset", onReset);
    // Focused before the page hydrated: that was its first use.
    if (element.contains(document.activeElement)) onFirstUse();
    else element.addEventListener("focusin", onFirstUse, { once: true });
    return () => {
      element.removeEventListener("input", onInput);
      element.removeEventListener("focusout", onLeave);
      element.removeEventListener("reset", onReset);
      element.removeEventListener("focusin", onFirstUse);
    };
    // The defaults are read when the form is reset only.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [formId]);

  // A refusal from the server: the first field it refused is focused, as after the browser's check.
  const answered = useRef(state.result);
  useEffect(() => {
    if (state.result === answered.current) return;
    answered.current = state.result;
    const element = document.forms.namedItem(formId);
    // Answered with no initial value (`reply({ resetForm: true })`): the fields go back to their defaults.
    if (state.result?.initialValue === null) element?.reset();
    else if (state.result?.status === "error") focusFirstInvalid(element, state.errors);
  }, [formId, state.result, state.errors]);

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    if (!validate.current) return; // not loaded yet: the server checks
    const submitter = (event.nativeEvent as SubmitEvent).submitter;
    const submission = validate.current(new FormData(event.currentTarget, submitter), locale);
    const errors: Errors = submission.error ?? {};
    setState({ ...state, errors, submitted: true });
    if (submission.status === "success") return;
    event.preventDefault();
    focusFirstInvalid(event.currentTarget, errors);
  };
  const update = ({ name, value }: { name: string; value: string }) => {
    const field = document.forms.namedItem(formId)?.elements.namedItem(name);
    if (field instanceof HTMLInputElement) field.value = value;
    setState({ ...state, values: { ...state.values, [name]: value } });
  };

  const field = (name: string) => {
    const id = name ? `${formId}-${name}` : formId;
    return {
      id,
      name,
      formId,
      errorId: `${id}-error`,
      descriptionId: `${id}-description`,
      errors: state.errors[name] ?? undefined,
      initialValue: state.initial[name],
      get value() {
        readsValues.current = true;
        return state.values[name];
      },
    };
  };
  const form = { ...field(""), onSubmit, noValidate: true, update };
  const fields = new Proxy({}, { get: (_, name) => (typeof name === "string" ? field(name) : undefined) });
  // What conform's helpers and the pages read of conform's own metadata, and nothing more.
  type Form = FormMetadata<z.input<Schema>, string[]>;
  return [form as unknown as Form, fields as ReturnType<Form["getFieldset"]>] as const;
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
  /** Posts a plain form of a long list (useRowActions) through this row's fetcher, as its `fetcher.Form` would. */
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void fetcher.submit(submitted(event));
  };
  return { fetcher, errors, pending: fetcher.state !== "idle", submit };
}
