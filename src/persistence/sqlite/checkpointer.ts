import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';

/**
 * Checkpoints the WAL on a thread of its own while writes keep coming.
 *
 * SQLite's autocheckpoint runs inside the commit that crosses its mark: it copies the frames into
 * the database file and syncs both files, on the event loop. In a saturated bench those commits
 * were 1.5% of the commits and 62% of the commit time (up to 237 ms each), a stall for every wakeup
 * behind them. A PASSIVE checkpoint on another connection copies what is committed without holding
 * the writer back; once it has copied everything, the next write starts the WAL afresh, so the
 * commits seldom reach the mark. The autocheckpoint stays as the bound on the WAL (database.ts).
 *
 * The two threads share one word instead of messages: a saturated scheduler can run for seconds
 * on promise continuations alone, and a message or a timer would wait for the event loop to turn.
 * The commit asks (IDLE → ASKED) when the last checkpoint is done and PACE_MS old; the thread
 * checkpoints and answers (ASKED → IDLE).
 *
 * A thread costs some 9 MB, so it runs through a burst only: it starts after BURST_COMMITS commits
 * that wrote, and it stops when the store goes idle (SqliteStore's idle checkpoint).
 */
export class BurstCheckpointer {
  private thread: { worker: Worker; state: Int32Array } | null = null;
  /** A thread asked to end, until it has: a close waits for it too. */
  private stopping: Promise<void> = Promise.resolve();
  private commitsSinceIdle = 0;
  private lastAskedAt = -Infinity;
  /** No thread at all: none can be made here, or the store is closing. The commits checkpoint, as without one. */
  private disabled = false;
  /**
   * A thread that failed (a read-only file, a full disk) would likely fail again at once: the commits
   * checkpoint instead until then, and a thread is tried again after it, since a disk that was full
   * may have room again in a process that runs for weeks.
   */
  private failedUntil = -Infinity;

  /** `now`: a monotonic clock in milliseconds (performance.now; a test's own). */
  constructor(private readonly path: string, private readonly log: Pick<Logger, 'warn'>, private readonly now: () => number = () => performance.now()) {}

  /** After each commit that wrote: a checkpoint, one at a time, at most one per PACE_MS. */
  committed(): void {
    if (++this.commitsSinceIdle < BURST_COMMITS || this.disabled) return;
    const now = this.now();
    if (now < this.failedUntil || now - this.lastAskedAt < PACE_MS) return;
    const thread = this.thread ?? this.start();
    if (!thread) return;
    const { state } = thread;
    if (Atomics.compareExchange(state, 0, IDLE, ASKED) !== IDLE) return;
    Atomics.notify(state, 0);
    this.lastAskedAt = now;
  }

  /** The writes stopped: the thread goes, until the next burst. Resolves once it has; null when none was running. */
  idle(): Promise<void> | null {
    this.commitsSinceIdle = 0;
    return this.thread ? this.stop() : null;
  }

  /** Whether a thread runs now (a new burst may have started one while the last one stopped). */
  get running(): boolean {
    return this.thread !== null;
  }

  /** Resolves once no thread is left: the one running now, and one still ending. */
  async close(): Promise<void> {
    this.disabled = true;
    await this.stop();
  }

  private start(): NonNullable<BurstCheckpointer['thread']> | null {
    const state = new Int32Array(new SharedArrayBuffer(4));
    let worker: Worker;
    try {
      worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path: this.path, driver: DRIVER, state } });
    } catch (error) {
      // No thread can be made here (a permission model without worker threads, say): the commits checkpoint, as without one.
      this.log.warn({ db: this.path, err: error }, 'no thread for background WAL checkpoints; the commits checkpoint the WAL instead');
      this.disabled = true;
      return null;
    }
    // Unreferenced while it works, so that it never keeps a process alive.
    worker.unref();
    worker.on('message', (error: string) => this.giveUp(worker, error));
    // The WAL is still bounded without the thread: the autocheckpoint inside the commits takes over.
    worker.on('error', (error) => this.giveUp(worker, error));
    worker.on('exit', () => {
      if (this.thread?.worker === worker) this.thread = null;
    });
    this.thread = { worker, state };
    return this.thread;
  }

  private giveUp(worker: Worker, error: unknown): void {
    if (this.thread?.worker !== worker) return;
    this.log.warn({ db: this.path, err: error, retry_in_ms: RETRY_AFTER_FAILURE_MS },
      'the background WAL checkpoint failed; the commits checkpoint the WAL instead until a thread is tried again');
    this.failedUntil = this.now() + RETRY_AFTER_FAILURE_MS;
    void this.stop();
  }

  private stop(): Promise<void> {
    const thread = this.thread;
    this.thread = null;
    if (thread) {
      // Referenced while it stops, so that a close waits for it. 'exit' comes after an 'error' too.
      thread.worker.ref();
      const exited = new Promise<void>((resolve) => thread.worker.once('exit', () => resolve()));
      Atomics.store(thread.state, 0, CLOSING);
      Atomics.notify(thread.state, 0);
      this.stopping = Promise.all([this.stopping, exited]).then(() => undefined);
    }
    return this.stopping;
  }
}

/** The shared word's values. */
const IDLE = 0;
const ASKED = 1;
const CLOSING = 2;

/** Commits that wrote, since the store was last idle, before a burst is worth a thread. */
const BURST_COMMITS = 50;
/** The least time between two background checkpoints: each syncs both files. */
const PACE_MS = 100;
/** How long after a thread failed the next is tried. */
export const RETRY_AFTER_FAILURE_MS = 10 * 60_000;

/** better-sqlite3 as this module resolves it: the thread's code is evaluated, with no module of its own to resolve from. */
const DRIVER = createRequire(import.meta.url).resolve('better-sqlite3');

/**
 * The thread: its own connection, which only checkpoints, waiting on the shared word. PASSIVE never
 * waits for a lock, so the writer and its readers are never held back; it copies what it can and
 * the next one goes on. A failure is sent as a message, and the thread ends. Plain JavaScript
 * evaluated as the thread's script, so that it runs the same from source and from dist/.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { path, driver, state } = workerData;
const [IDLE, ASKED, CLOSING] = [${IDLE}, ${ASKED}, ${CLOSING}];
let db;
try {
  db = new (require(driver))(path, { fileMustExist: true });
  db.pragma('busy_timeout = 0');
  const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  for (;;) {
    Atomics.wait(state, 0, IDLE);
    if (Atomics.load(state, 0) === CLOSING) break;
    checkpoint.get();
    Atomics.compareExchange(state, 0, ASKED, IDLE);
  }
} catch (error) {
  parentPort.postMessage(String((error && error.message) || error));
} finally {
  if (db) db.close();
}
`;
