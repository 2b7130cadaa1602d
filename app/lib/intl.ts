/**
 * Intl formatters, made once per locale and options and reused: creating one costs far more
 * than formatting with it (it was a visible share of a page render on the server).
 */
const numberFormats = new Map<string, Intl.NumberFormat>();

export function numberFormat(locale: string, options: Intl.NumberFormatOptions = {}): Intl.NumberFormat {
  const key = `${locale}|${JSON.stringify(options)}`;
  let format = numberFormats.get(key);
  if (!format) numberFormats.set(key, (format = new Intl.NumberFormat(locale, options)));
  return format;
}

const dateFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * A billing date ("March 4, 2027"). Periods start and end at a moment the provider chose; the
 * day is shown in UTC, so the server's page and the browser's agree.
 */
export function billingDate(locale: string, date: Date): string {
  let format = dateFormats.get(locale);
  if (!format)
    dateFormats.set(locale, (format = new Intl.DateTimeFormat(locale, { dateStyle: "long", timeZone: "UTC" })));
  return format.format(date);
}

const customDateFormats = new Map<string, Intl.DateTimeFormat>();

/** A date format with the given options (a chart's day labels, say), made once per locale and options. */
export function dateFormat(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale}|${JSON.stringify(options)}`;
  let format = customDateFormats.get(key);
  if (!format) customDateFormats.set(key, (format = new Intl.DateTimeFormat(locale, options)));
  return format;
}
