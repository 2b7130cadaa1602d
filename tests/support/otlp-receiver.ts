/**
 * An OpenTelemetry collector stand-in on loopback: it takes OTLP/HTTP trace exports in JSON
 * (what @opentelemetry/exporter-trace-otlp-http sends) at /v1/traces and keeps their spans,
 * with attributes decoded to plain values. Pass `url` as OTEL_EXPORTER_OTLP_ENDPOINT.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** OTLP's span kinds and status codes, as the JSON carries them. */
export const SPAN_KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3, CONSUMER: 5 } as const;
export const STATUS_ERROR = 2;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a trace's root. */
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string };
  events: { name: string; attributes: Record<string, unknown> }[];
  /** The attributes of the resource that sent it (service.name, ...). */
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** http://127.0.0.1:<port> */
  url: string;
  spans: ReceivedSpan[];
  /** How many exports arrived, spans or not. */
  exports: number;
  /** The first span `predicate` accepts, waiting up to `timeoutMs` for it to arrive. */
  waitFor(predicate: (span: ReceivedSpan) => boolean, timeoutMs?: number): Promise<ReceivedSpan>;
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}
type KeyValues = { key: string; value: AnyValue }[] | undefined;

function decodeValue(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(decodeValue);
  return null;
}

const decode = (attributes: KeyValues) =>
  Object.fromEntries((attributes ?? []).map(({ key, value }) => [key, decodeValue(value)]));

interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValues };
    scopeSpans?: {
      spans?: (Omit<ReceivedSpan, "attributes" | "events" | "resource"> & {
        attributes?: KeyValues;
        events?: { name: string; attributes?: KeyValues }[];
      })[];
    }[];
  }[];
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const listeners = new Set<() => void>();
  const receiver = { exports: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/traces" || !/json/.test(req.headers["content-type"] ?? "")) {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ExportRequest;
      receiver.exports++;
      for (const { resource, scopeSpans } of body.resourceSpans ?? []) {
        for (const { spans: received } of scopeSpans ?? []) {
          for (const span of received ?? []) {
            spans.push({
              ...span,
              parentSpanId: span.parentSpanId ?? "",
              status: span.status ?? {},
              attributes: decode(span.attributes),
              events: (span.events ?? []).map((event) => ({ name: event.name, attributes: decode(event.attributes) })),
              resource: decode(resource?.attributes),
            });
          }
        }
      }
      for (const listener of listeners) listener();
      res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    get exports() {
      return receiver.exports;
    },
    waitFor(predicate, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const span = spans.find(predicate);
          if (!span) return;
          clearTimeout(timer);
          listeners.delete(check);
          resolve(span);
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`No such span within ${timeoutMs} ms; received: ${spans.map((s) => s.name).join(", ")}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
