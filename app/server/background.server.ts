import { startRevocationListener } from "~/server/auth/revocation.server";
import { startQueue } from "~/server/jobs/queue.server";
import { startMetrics } from "~/server/metrics.server";
import { startWebhooks } from "~/server/webhooks/delivery.server";

/**
 * What runs beside the request handler in every process that serves the app: the process's
 * own gauges, other instances' session revocations, organization events published to their
 * webhooks, and the job queue's workers (mail, webhook deliveries). The production server
 * starts it before it listens; the development server when its entry module loads, and again
 * on each reload of that module, so each part may be started more than once.
 */
export async function startBackgroundWork(): Promise<void> {
  startMetrics();
  startRevocationListener();
  startWebhooks();
  await startQueue();
}
