/**
 * A webhook receiver on loopback for the tests: each path is an endpoint with its own signing
 * secret, and every delivery is verified with the `standardwebhooks` library (`Webhook.verify`),
 * as a customer's receiver would. A path may fail its first `failures` deliveries (500 with a
 * long body) or always; otherwise it answers 200. Every request is recorded, verified or not.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

export interface ReceivedDelivery {
  path: string;
  /** webhook-id */
  id: string;
  /** The event's type, from the body. */
  type: string;
  verified: boolean;
  payload: { type: string; timestamp: string; data: Record<string, unknown> } | null;
  headers: IncomingHttpHeaders;
  status: number;
}

export interface WebhookReceiver {
  /** http://127.0.0.1:<port> */
  origin: string;
  received: ReceivedDelivery[];
  /** Receives at `path` with `secret`; `failures`: how many deliveries fail first (Infinity: all). */
  register(path: string, secret: string, options?: { failures?: number }): string;
  /** Deliveries at `path` so far. */
  at(path: string): ReceivedDelivery[];
  /** Decides the status of each verified delivery instead of `failures` (e.g. fail each message once). */
  onDelivery: ((delivery: Omit<ReceivedDelivery, "status">) => number) | null;
  close(): Promise<void>;
}

export async function startWebhookReceiver(port = 0): Promise<WebhookReceiver> {
  const endpoints = new Map<string, { secret: string; failures: number }>();
  const received: ReceivedDelivery[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const path = request.url ?? "/";
      const body = Buffer.concat(chunks).toString("utf8");
      const endpoint = endpoints.get(path);
      let payload: ReceivedDelivery["payload"] = null;
      let verified = false;
      if (endpoint) {
        try {
          payload = new Webhook(endpoint.secret).verify(body, {
            "webhook-id": String(request.headers["webhook-id"]),
            "webhook-timestamp": String(request.headers["webhook-timestamp"]),
            "webhook-signature": String(request.headers["webhook-signature"]),
          }) as ReceivedDelivery["payload"];
          verified = true;
        } catch {
          verified = false;
        }
      }
      const delivery = {
        path,
        id: String(request.headers["webhook-id"]),
        type: payload?.type ?? "",
        verified,
        payload,
        headers: request.headers,
      };
      const failing = endpoint ? endpoint.failures > 0 : true;
      if (endpoint && failing) endpoint.failures -= 1;
      const status = !verified ? 400 : receiver.onDelivery ? receiver.onDelivery(delivery) : failing ? 500 : 200;
      received.push({ ...delivery, status });
      // A failure answers more than the 2 KB the product keeps.
      response.writeHead(status, { "content-type": "text/plain" }).end(status === 200 ? "ok" : "x".repeat(5000));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const receiver: WebhookReceiver = {
    origin,
    received,
    onDelivery: null,
    register(path, secret, { failures = 0 } = {}) {
      endpoints.set(path, { secret, failures });
      return `${origin}${path}`;
    },
    at: (path) => received.filter((delivery) => delivery.path === path),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}
