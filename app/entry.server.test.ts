import { expect, it, vi } from "vitest";

const startQueue = vi.hoisted(() => vi.fn(() => Promise.resolve()));
vi.mock(import("~/server/jobs/queue.server"), async (original) => ({ ...(await original()), startQueue }));

// `npm run dev` runs no startup(): without this, no worker would send the queued emails.
it("starts the job queue's workers when the development server loads it", async () => {
  expect(import.meta.env.DEV).toBe(true);
  await import("./entry.server");
  expect(startQueue).toHaveBeenCalledTimes(1);
});
