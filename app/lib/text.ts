/**
 * Characters no input of the product has a use for, shared by the JSON API's dispatcher and
 * the page actions' form middleware: C0 controls other than tab and line breaks, DEL (NUL
 * alone makes PostgreSQL refuse a query), C1 controls, and the bidirectional embedding,
 * override and isolate controls that make a name read as something else ("\u202Egnp.exe").
 * Right-to-left text itself, and the marks and joiners scripts and emoji need, are fine.
 */
export const FORBIDDEN_CHARACTERS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** Tabs and line breaks: fine in a multi-line field (a reason, metadata), never in a single-line one. */
export const LINE_CHARACTERS = /[\t\n\r]/;

/** Whether a single-line value (a name, a password) is free of line breaks and tabs. */
export const isSingleLine = (value: string) => !LINE_CHARACTERS.test(value);
