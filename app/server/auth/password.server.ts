/**
 * Password hashing with bcryptjs (cost 10) on a small pool of worker threads. bcrypt is
 * pure CPU for ~50-100 ms per hash; on the main thread a burst of sign-ins would stall every
 * page render behind it. The worker's code is a string evaluated by `new Worker(code,
 * { eval: true })` and loads bcryptjs with `require` from the resolved package path, because
 * a separate worker file would not survive the Vite SSR bundle (it rewrites paths and inlines
 * modules) while an absolute path to node_modules always does.
 */
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { z } from "zod";

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;
const BCRYPT_COST = 10;

/** A new password. The messages are catalogue codes: the API answers them, pages translate them. */
export const passwordSchema = z
  .string()
  .min(PASSWORD_MIN, { message: "PASSWORD_TOO_SHORT" })
  .max(PASSWORD_MAX, { message: "PASSWORD_TOO_LONG" });

/**
 * Niceness of the hashing threads. Linux keeps a nice value per thread, so a worker that
 * lowers its own priority leaves the main thread's: where the cores are all busy (a storm of
 * sign-ins), pages keep their share and the sign-ins wait instead. 19 is about 1/70 of a
 * busy core's time against a normal thread, yet hashing still gets every idle moment: in the
 * bench's storm (a home page load on both cores) ~110–125 sign-ins still complete in 10 s,
 * as at nice 10, while the home page's p99 grows by 25–40 % instead of 60–90 %.
 */
export const WORKER_NICENESS = 19;

const WORKER_CODE = `
const { parentPort, workerData } = require("node:worker_threads");
const bcrypt = require(workerData.bcryptPath);
try {
  require("node:os").setPriority(workerData.niceness);
} catch {
  // Not permitted here (or not per thread): the worker runs at the process's priority.
}
parentPort.on("message", async ({ id, op, plain, hash, cost }) => {
  try {
    const result = op === "hash" ? await bcrypt.hash(plain, cost) : await bcrypt.compare(plain, hash);
    parentPort.postMessage({ id, result });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message || error) });
  }
});
`;

type Job = { op: "hash" | "compare"; plain: string; hash?: string; cost?: number };
type Pending = { resolve: (value: string | boolean) => void; reject: (error: Error) => void };
/** A worker and the ids of the jobs it is running. */
type Slot = { worker: Worker; jobs: Set<number> };

const POOL_SIZE = Math.max(1, availableParallelism() - 1);

let bcryptPath: string | undefined;
const slots: Slot[] = [];
const pending = new Map<number, Pending>();
let nextId = 1;

function spawn(): Slot {
  bcryptPath ??= createRequire(import.meta.url).resolve("bcryptjs");
  // bcrypt needs a few kilobytes per job: a small heap keeps each worker's memory small
  // (V8 otherwise sizes a worker's heap like the main thread's).
  const worker = new Worker(WORKER_CODE, {
    eval: true,
    workerData: { bcryptPath, niceness: WORKER_NICENESS },
    resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
  });
  const slot: Slot = { worker, jobs: new Set() };
  slot.worker.on("message", ({ id, result, error }: { id: number; result?: string | boolean; error?: string }) => {
    const job = pending.get(id);
    pending.delete(id);
    slot.jobs.delete(id);
    if (error !== undefined) job?.reject(new Error(error));
    else job?.resolve(result!);
  });
  // A crashed worker fails its own jobs and leaves the pool; the next call starts a new one.
  const retire = (error: Error) => {
    const index = slots.indexOf(slot);
    if (index >= 0) slots.splice(index, 1);
    for (const id of slot.jobs) {
      pending.get(id)?.reject(error);
      pending.delete(id);
    }
    slot.jobs.clear();
  };
  slot.worker.on("error", retire);
  slot.worker.on("exit", (code) => retire(new Error(`password worker exited with code ${code}`)));
  // Idle workers must not keep the process (a test, a script) alive.
  slot.worker.unref();
  return slot;
}

/** An idle worker, a new one while the pool is below POOL_SIZE, else the least busy. */
function pickSlot(): Slot {
  const idle = slots.find((slot) => slot.jobs.size === 0);
  if (idle) return idle;
  if (slots.length < POOL_SIZE) {
    const slot = spawn();
    slots.push(slot);
    return slot;
  }
  return slots.reduce((a, b) => (b.jobs.size < a.jobs.size ? b : a));
}

function run(job: Job): Promise<string | boolean> {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    const slot = pickSlot();
    pending.set(id, { resolve, reject });
    slot.jobs.add(id);
    slot.worker.postMessage({ id, ...job });
  });
}

export async function hashPassword(plain: string): Promise<string> {
  return (await run({ op: "hash", plain, cost: BCRYPT_COST })) as string;
}

/** False for a wrong password and for a malformed hash (never throws on bad input). */
export async function verifyPassword(plain: string, hash: string): Promise<boolean> {
  try {
    return (await run({ op: "compare", plain, hash })) === true;
  } catch {
    return false;
  }
}

// A real bcrypt hash of a random string: comparing against it costs exactly what a real
// check costs, so a sign-in for an unknown email takes as long as one for a known email.
const DUMMY_HASH = "$2b$10$V5674bQ5HS37fYBV0k8Yb.XAwiq6bjYub59FNi1wFcaqu5HYdJmV2";

/** Spends one password check's worth of time, so "no such user" is not faster than "wrong password". */
export async function spendPasswordCheck(plain: string): Promise<void> {
  await verifyPassword(plain, DUMMY_HASH);
}
