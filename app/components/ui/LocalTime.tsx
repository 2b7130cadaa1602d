import { useEffect, useState } from "react";
import { dateFormat } from "~/lib/intl";

function format(date: Date, locale: string, timeZone?: string) {
  const text = dateFormat(locale, { dateStyle: "medium", timeStyle: "short", timeZone }).format(date);
  // dateStyle cannot be combined with timeZoneName: name the zone by hand.
  return timeZone ? `${text} ${timeZone}` : text;
}

/**
 * A date and time in the reader's time zone. The server does not know that zone, so it
 * writes UTC (and says so); the browser rewrites it in local time once hydrated.
 */
export function LocalTime({ iso, locale }: { iso: string; locale: string }) {
  const date = new Date(iso);
  const [text, setText] = useState(() => format(date, locale, "UTC"));
  useEffect(() => setText(format(new Date(iso), locale)), [iso, locale]);
  return (
    <time dateTime={iso} suppressHydrationWarning>
      {text}
    </time>
  );
}
