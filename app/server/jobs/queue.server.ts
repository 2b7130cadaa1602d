/**
 * The durable job queue, kept in the product's own database (docs/decisions/0029): pg-boss on
 * PostgreSQL (its `pgboss` schema; SKIP LOCKED hands each job to one worker of one instance,
 * retries with exponential backoff are its own), plainjob on SQLite (its `plainjob_jobs`
 * table in the same file; a job is claimed in a transaction). Both sit behind this one small
 * interface, below the layers, so any domain may define and enqueue jobs:
 *
 * - `defineJob(name, handler, { retry, concurrency })` at module load; a handler that throws
 *   is retried under its policy, and is told its attempt and whether it is the last one; one
 *   that throws a `FinalJobFailure` is failed at once, whatever attempts are left;
 * - `enqueue(name, payload, { delaySeconds })` from anywhere (it opens the queue if needed);
 * - `startQueue()` / `stopQueue()` with the server, `queueDepth()` for metrics.
 *
 * plainjob has no retries: a failed attempt is enqueued again through plainjob, with the delay
 * pg-boss's backoff formula would give, so both databases retry on the same schedule. A job
 * enqueued without delay wakes this instance's idle workers at once on both (pg-boss's
 * notifyWorker, plainWorker's wake): a request's email does not wait for the next poll.
 */
import Database from "better-sqlite3";
// The two libraries load with the backend that uses them: a server holds one of them only.
import type PgBoss from "pg-boss";
import type { Queue } from "plainjob";
import { DEFAULT_DATABASE_URL, providerOf, sqliteFilePath } from "~/server/db/url.server";
import { loadEnv } from "~/server/env.server";
import { logger } from "~/server/log.server";
import { traced } from "~/server/tracing.server";

export interface RetryPolicy {
  /** Retries after the first attempt (0: none). */
  limit: number;
  /** The wait before the first retry. */
  delaySeconds: number;
  /** Each next wait about twice the last (with jitter), as pg-boss's retryBackoff. */
  backoff: boolean;
}

export interface JobContext {
  /** 1 for the first attempt. */
  attempt: number;
  /** No retry follows when this attempt throws. */
  lastAttempt: boolean;
}

/** What a handler throws when no later attempt can succeed (a mail server refusing the recipient): no retry follows. */
export class FinalJobFailure extends Error {}

type Handler = (payload: unknown, context: JobContext) => Promise<void>;

interface JobDefinition {
  name: string;
  handler: Handler;
  retry: () => RetryPolicy;
  concurrency: number;
}

interface Backend {
  send(job: JobDefinition, payload: unknown, options: { delaySeconds: number; attempt: number }): Promise<void>;
  work(job: JobDefinition): Promise<void>;
  depth(): Promise<number>;
  close(): Promise<void>;
}

const NO_RETRY: RetryPolicy = { limit: 0, delaySeconds: 1, backoff: false };
const definitions = new Map<string, JobDefinition>();

/**
 * Registers the handler of the jobs called `name` (letters, digits, hyphens). `concurrency`
 * workers of this instance run them at once; `retry` is read when the queue starts (the
 * environment may set it).
 */
export function defineJob<T>(
  name: string,
  handler: (payload: T, context: JobContext) => Promise<void>,
  options: { retry?: () => RetryPolicy; concurrency?: number } = {},
): void {
  if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`Job names are lower-case letters, digits and hyphens: ${name}`);
  const fields = {
    // With traces on, each run is a trace: the job's queries and calls under one span.
    handler: ((payload, context) =>
      traced(
        `job ${name}`,
        { "app.job.attempt": context.attempt, ...queuedBy(payload) },
        () => handler(payload as T, context),
        "job",
      )) as Handler,
    retry: options.retry ?? (() => NO_RETRY),
  };
  const defined = definitions.get(name);
  // The module evaluated again (the development server's reload): the running workers take
  // the new handler, rather than more workers starting beside them.
  if (defined) return void Object.assign(defined, fields);
  const job: JobDefinition = { name, ...fields, concurrency: options.concurrency ?? 1 };
  definitions.set(name, job);
  // A module loaded after start (the development server loads routes lazily) still gets workers.
  if (state?.working) void state.backend.then((backend) => backend.work(job));
}

/**
 * The request that queued a job, when its payload names it (`requestId`, as an email's does):
 * the job's trace carries it, so a request's email is found from the request's id.
 */
function queuedBy(payload: unknown): { "app.request_id"?: string } {
  const requestId = (payload as { requestId?: unknown } | null)?.requestId;
  return typeof requestId === "string" ? { "app.request_id": requestId } : {};
}

/** The wait before retry number `retry` (1-based): pg-boss's formula, used for plainjob too. */
export function retryDelaySeconds(policy: RetryPolicy, retry: number): number {
  if (!policy.backoff) return policy.delaySeconds;
  const base = (policy.delaySeconds * 2 ** Math.min(16, retry)) / 2;
  return base + base * Math.random();
}

// ---- PostgreSQL: pg-boss ----

/** pg-boss's own schema in the product's database. */
const PG_SCHEMA = "pgboss";

/** Jobs one pg-boss worker fetches at once (and runs side by side). */
const PG_BATCH_SIZE = 8;

/** The PostgreSQL advisory lock that queue set-up holds, across instances (any fixed number). */
const QUEUE_SETUP_LOCK = 7_326_001;

/** Runs `fn` while this instance holds the queue set-up lock, on a connection of its own. */
async function oneInstanceAtATime(connectionString: string, fn: () => Promise<void>): Promise<void> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [QUEUE_SETUP_LOCK]);
    await fn();
  } finally {
    // Closing the connection releases the lock too, should the unlock fail.
    await client.query("SELECT pg_advisory_unlock($1)", [QUEUE_SETUP_LOCK]).catch(() => undefined);
    await client.end();
  }
}

async function pgBoss(connectionString: string): Promise<Backend> {
  const { default: PgBoss } = await import("pg-boss");
  const boss = new PgBoss({
    connectionString,
    schema: PG_SCHEMA,
    // A small pool of its own: the app's pool stays for requests.
    max: 3,
    // No cron jobs (yet): the timekeeper would only poll.
    schedule: false,
  });
  boss.on("error", (error) => logger().error(`Job queue (pg-boss): ${error.message}`));
  await boss.start();
  const ready = new Set<string>();
  const prepare = async (job: JobDefinition) => {
    if (ready.has(job.name)) return;
    const { limit, delaySeconds, backoff } = job.retry();
    const options = { name: job.name, retryLimit: limit, retryDelay: delaySeconds, retryBackoff: backoff };
    // create_queue does nothing for an existing queue; the update applies this start's policy.
    // Instances starting together would deadlock in create_queue (each inserting the queue
    // row and creating its partition): one instance at a time sets queues up.
    await oneInstanceAtATime(connectionString, async () => {
      await boss.createQueue(job.name, options);
      await boss.updateQueue(job.name, options);
    });
    ready.add(job.name);
  };
  /** This instance's workers of each job, woken when there is work (notifyWorker). */
  const workers = new Map<string, string[]>();
  const wake = (name: string) => workers.get(name)?.forEach((id) => boss.notifyWorker(id));
  return {
    async send(job, payload, { delaySeconds }) {
      await prepare(job);
      await boss.send(job.name, payload as object, delaySeconds ? { startAfter: Math.ceil(delaySeconds) } : {});
      // Now rather than at the next poll; another instance's workers find it at theirs.
      if (!delaySeconds) wake(job.name);
    },
    async work(job) {
      await prepare(job);
      const pollingIntervalSeconds = loadEnv().JOB_POLL_INTERVAL_MS / 1000;
      for (let worker = 0; worker < job.concurrency; worker++) {
        // A pg-boss worker waits out its polling interval after every fetch, even a full one:
        // each fetches a batch, runs its jobs side by side, and after a full batch is woken
        // to fetch again at once. A job that throws is failed alone (retried under the
        // queue's policy); pg-boss completes the rest, still active.
        let id = "";
        id = await boss.work(
          job.name,
          { batchSize: PG_BATCH_SIZE, includeMetadata: true, pollingIntervalSeconds },
          async (items: PgBoss.JobWithMetadata<object>[]) => {
            await Promise.all(
              items.map((item) =>
                job
                  .handler(item.data, { attempt: item.retryCount + 1, lastAttempt: item.retryCount >= item.retryLimit })
                  .catch(async (error: Error) => {
                    // pg-boss retries any failed job with retries left; it has no final failure of
                    // its own, so the job is first given no more retries than it has had.
                    if (error instanceof FinalJobFailure) {
                      await boss
                        .getDb()
                        .executeSql(
                          `UPDATE ${PG_SCHEMA}.job SET retry_limit = retry_count WHERE name = $1 AND id = $2`,
                          [job.name, item.id],
                        );
                    }
                    await boss.fail(job.name, item.id, { message: error.message });
                  }),
              ),
            );
            if (items.length === PG_BATCH_SIZE && id) boss.notifyWorker(id);
          },
        );
        workers.set(job.name, [...(workers.get(job.name) ?? []), id]);
      }
    },
    async depth() {
      const sizes = await Promise.all([...definitions.keys()].map((name) => boss.getQueueSize(name)));
      return sizes.reduce((sum, size) => sum + size, 0);
    },
    // Waits for running jobs (up to 10 s); what is still running then is retried later.
    close: () => boss.stop({ graceful: true, wait: true, timeout: 10_000 }),
  };
}

// ---- SQLite: plainjob ----

interface Envelope {
  payload: unknown;
  attempt: number;
}

// plainjob's own debug and info lines would flood the server's output.
const quiet = {
  error: (message: string) => logger().error(`Job queue (plainjob): ${message}`),
  warn: () => undefined,
  info: () => undefined,
  debug: () => undefined,
};

/**
 * One worker of a plainjob queue: claims the next due job of its name (plainjob's claim is an
 * immediate transaction, so one worker of one process gets it), runs it, and when none is due
 * sleeps for the polling interval, unless `wake()` ends the sleep first. plainjob's own worker
 * loop cannot be woken (only stopped), so jobs enqueued here would wait out a poll.
 */
function plainWorker(queue: Queue, name: string, run: (data: string) => Promise<void>, pollMs: number) {
  let stopped = false;
  let wake = () => {};
  const loop = (async () => {
    while (!stopped) {
      try {
        const claimed = queue.getAndMarkJobAsProcessing(name);
        const item = claimed && queue.getJobById(claimed.id);
        if (item) {
          await run(item.data).then(
            () => queue.markJobAsDone(item.id),
            (error: Error) => queue.markJobAsFailed(item.id, error.message),
          );
          continue;
        }
      } catch (error) {
        // The database file busy beyond its timeout: try again after the pause. (A job whose
        // end could not be written is handed out again once the queue's timeout has passed.)
        quiet.error((error as Error).message);
      }
      // Set in the same turn as the claim above: a job added in between wakes this very sleep.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();
  return {
    wake: () => wake(),
    async stop() {
      stopped = true;
      wake();
      await loop;
    },
  };
}

async function plainJob(file: string): Promise<Backend> {
  const { better, defineQueue, JobStatus } = await import("plainjob");
  const database = new Database(file, { timeout: 5000 });
  const queue: Queue = defineQueue({
    connection: better(database),
    logger: quiet,
    // A job claimed by an instance that died is handed out again after this long.
    timeout: 15 * 60_000,
  });
  const workers = new Map<string, ReturnType<typeof plainWorker>[]>();
  const add = (job: JobDefinition, envelope: Envelope, delaySeconds: number) => {
    queue.add(job.name, envelope, { delay: Math.round(delaySeconds * 1000) });
    // Now rather than at the next poll; other processes' workers find it at theirs.
    if (!delaySeconds) workers.get(job.name)?.forEach((worker) => worker.wake());
  };

  async function attempt(job: JobDefinition, data: string) {
    const { payload, attempt } = JSON.parse(data) as Envelope;
    const policy = job.retry();
    try {
      await job.handler(payload, { attempt, lastAttempt: attempt > policy.limit });
    } catch (error) {
      if (attempt > policy.limit || error instanceof FinalJobFailure) throw error;
      add(job, { payload, attempt: attempt + 1 }, retryDelaySeconds(policy, attempt));
    }
  }

  return {
    async send(job, payload, { delaySeconds, attempt }) {
      add(job, { payload, attempt }, delaySeconds);
    },
    async work(job) {
      const pollMs = loadEnv().JOB_POLL_INTERVAL_MS;
      const started = Array.from({ length: job.concurrency }, () =>
        plainWorker(queue, job.name, (data) => attempt(job, data), pollMs),
      );
      workers.set(job.name, [...(workers.get(job.name) ?? []), ...started]);
    },
    async depth() {
      return queue.countJobs({ status: JobStatus.Pending }) + queue.countJobs({ status: JobStatus.Processing });
    },
    async close() {
      // Each stop waits for the job its worker is running, before the database goes.
      await Promise.all([...workers.values()].flat().map((worker) => worker.stop()));
      queue.close();
      database.close();
    },
  };
}

// ---- the process's queue ----

let state: { backend: Promise<Backend>; working: boolean } | null = null;

function open() {
  if (!state) {
    const url = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
    const backend = providerOf(url) === "postgresql" ? pgBoss(url) : plainJob(sqliteFilePath(url));
    state = { backend, working: false };
    // A failed open is tried again by the next call.
    backend.catch(() => (state = null));
  }
  return state.backend;
}

/** Adds a job `name` (defined with defineJob) that runs after `delaySeconds`, once. */
export async function enqueue(name: string, payload: unknown, options: { delaySeconds?: number } = {}): Promise<void> {
  const job = definitions.get(name);
  if (!job) throw new Error(`No job is defined as ${name}`);
  await (await open()).send(job, payload, { delaySeconds: options.delaySeconds ?? 0, attempt: 1 });
}

/** Starts this instance's workers for every defined job (at server start). */
export async function startQueue(): Promise<void> {
  const backend = await open();
  if (state!.working) return;
  state!.working = true;
  for (const job of definitions.values()) await backend.work(job);
}

/** Stops the workers (letting running jobs finish) and closes the queue's connections. */
export async function stopQueue(): Promise<void> {
  if (!state) return;
  const { backend } = state;
  state = null;
  await (await backend.catch(() => null))?.close();
}

/** Jobs waiting or running, all names together. */
export async function queueDepth(): Promise<number> {
  return (await open()).depth();
}
