import { useId } from "react";
import { dateFormat, numberFormat } from "~/lib/intl";
import { useLocale } from "~/lib/use-root-data";

interface ChartSeries {
  key: string;
  label: string;
  /** A Tailwind fill class, written out in full so that Tailwind finds it. */
  fill: string;
}

// In viewBox units; the SVG scales to its column's width (about 500-700 px on a desktop).
const WIDTH = 600;
const HEIGHT = 220;
const PLOT = { left: 40, right: 8, top: 10, bottom: 28 };
const FONT_SIZE = 13;

/** The smallest of 1, 2, 5 × 10^n at or above `value`: a round top for the axis. */
export function niceCeiling(value: number): number {
  if (value <= 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((step) => step * magnitude).find((top) => top >= value)!;
}

/**
 * A bar chart per day, stacked by series, drawn on the server as SVG: it needs no script and
 * no chart library. A legend names the series' colours; a chart with nothing to draw says so. The image has a title and a one-sentence summary for screen readers, each
 * bar a tooltip, and every number is also in a table that only screen readers see.
 */
export function BarChart({
  title,
  summary,
  days,
  series,
  values,
  dayHeader,
  testId,
  empty,
}: {
  title: string;
  /** One sentence: what the chart shows in numbers (the SVG's description). */
  summary: string;
  /** YYYY-MM-DD, oldest first. */
  days: readonly string[];
  series: readonly ChartSeries[];
  /** values[day][series] */
  values: readonly (readonly number[])[];
  /** The table's first column heading. */
  dayHeader: string;
  testId: string;
  /** Shown in place of the plot when every value is 0: a heading and a sentence. */
  empty: { title: string; text: string };
}) {
  const id = useId();
  const locale = useLocale();
  const number = numberFormat(locale);
  const dayLabel = dateFormat(locale, { month: "short", day: "numeric", timeZone: "UTC" });
  const longDay = dateFormat(locale, { dateStyle: "medium", timeZone: "UTC" });
  const dateOf = (day: string) => new Date(`${day}T00:00:00Z`);

  const top = niceCeiling(Math.max(0, ...values.map((row) => row.reduce((sum, value) => sum + value, 0))));
  const plotWidth = WIDTH - PLOT.left - PLOT.right;
  const plotHeight = HEIGHT - PLOT.top - PLOT.bottom;
  const slot = plotWidth / Math.max(1, days.length);
  const barWidth = Math.max(1, slot * 0.75);
  const y = (value: number) => PLOT.top + plotHeight - (value / top) * plotHeight;
  // Counts: a middle line only where it is a whole number.
  const ticks = top % 2 === 0 ? [0, top / 2, top] : [0, top];
  // First, middle and last day: enough to read the time axis at any range.
  const labelled = [...new Set([0, Math.floor((days.length - 1) / 2), days.length - 1])];
  // An empty frame with an axis from 0 to 1 reads as broken: say there is nothing instead.
  const isEmpty = values.every((row) => row.every((value) => value === 0));

  return (
    <figure className="rounded-xl border border-slate-200 p-5 dark:border-slate-800" data-chart={testId}>
      <figcaption className="text-sm font-semibold">{title}</figcaption>
      {isEmpty ? (
        <div
          className="mt-3 flex aspect-[600/220] flex-col items-center justify-center gap-1 rounded-lg border border-dashed border-slate-300 p-4 text-center dark:border-slate-700"
          data-chart-empty
        >
          <p className="text-sm font-medium">{empty.title}</p>
          <p className="text-xs text-slate-600 dark:text-slate-400">{empty.text}</p>
        </div>
      ) : (
        <svg
          viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
          className="mt-3 h-auto w-full text-slate-600 dark:text-slate-400"
          role="img"
          aria-labelledby={`${id}-title ${id}-desc`}
        >
          <title id={`${id}-title`}>{title}</title>
          <desc id={`${id}-desc`}>{summary}</desc>
          {ticks.map((tick) => (
            <g key={tick}>
              <line
                x1={PLOT.left}
                x2={WIDTH - PLOT.right}
                y1={y(tick)}
                y2={y(tick)}
                className="stroke-slate-200 dark:stroke-slate-800"
              />
              <text x={PLOT.left - 6} y={y(tick) + 4} textAnchor="end" fontSize={FONT_SIZE} className="fill-current">
                {number.format(tick)}
              </text>
            </g>
          ))}
          {days.map((day, i) => {
            let base = 0;
            const x = PLOT.left + i * slot + (slot - barWidth) / 2;
            return (
              <g key={day}>
                {series.map((entry, s) => {
                  const value = values[i]?.[s] ?? 0;
                  if (value === 0) return null;
                  const rect = (
                    <rect
                      key={entry.key}
                      x={x}
                      y={y(base + value)}
                      width={barWidth}
                      height={y(base) - y(base + value)}
                      className={entry.fill}
                    >
                      <title>{`${longDay.format(dateOf(day))}, ${entry.label}: ${number.format(value)}`}</title>
                    </rect>
                  );
                  base += value;
                  return rect;
                })}
              </g>
            );
          })}
          {labelled.map((i) => (
            <text
              key={i}
              x={PLOT.left + i * slot + slot / 2}
              y={HEIGHT - 8}
              textAnchor={i === 0 ? "start" : i === days.length - 1 ? "end" : "middle"}
              fontSize={FONT_SIZE}
              className="fill-current"
            >
              {dayLabel.format(dateOf(days[i]!))}
            </text>
          ))}
        </svg>
      )}
      {/* The legend names each colour, one series too (the figure's title says what is counted, not the colour). */}
      {!isEmpty && series.length ? (
        <ul
          className="mt-3 flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-600 dark:text-slate-400"
          aria-hidden
          data-legend
        >
          {series.map((entry) => (
            <li key={entry.key} className="flex items-center gap-1.5" data-legend-item={entry.key}>
              <svg viewBox="0 0 10 10" className="size-2.5">
                <rect width="10" height="10" rx="2" className={entry.fill} />
              </svg>
              {entry.label}
            </li>
          ))}
        </ul>
      ) : null}
      {/* A table is never narrower than its content, so the visually hidden box is a wrapper. */}
      <div className="sr-only">
        <table data-testid={`${testId}-data`}>
          <caption>{title}</caption>
          <thead>
            <tr>
              <th scope="col">{dayHeader}</th>
              {series.map((entry) => (
                <th key={entry.key} scope="col">
                  {entry.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {days.map((day, i) => (
              <tr key={day} data-day={day}>
                <th scope="row">{longDay.format(dateOf(day))}</th>
                {series.map((entry, s) => (
                  <td key={entry.key} data-series={entry.key}>
                    {number.format(values[i]?.[s] ?? 0)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
