import { needsCapSlot } from '../../domain/provenance.js';
import type { Wakeup } from '../../domain/types.js';
import { raiseBothBy } from '../sql/capSlots.js';
import { foldsOnItsTask, WakeupsSql } from '../sql/wakeups.js';
import type { EnqueueSlot, FoldRule } from '../store.js';
import { POSTGRES_TEXT, postgresDialect } from './dialect.js';
import type { PgConnection } from './connection.js';

/** Appends the wake `@entry` to a context's list, in SQL, so two folds never overwrite each other (the column is JSON text). */
const APPEND_WAKE = `(CASE WHEN jsonb_typeof(context_snapshot::jsonb -> 'wakes') = 'array'
  THEN jsonb_set(context_snapshot::jsonb, '{wakes}', (context_snapshot::jsonb -> 'wakes') || jsonb_build_array(@entry::jsonb))
  ELSE jsonb_set(context_snapshot::jsonb, '{wakes}', jsonb_build_array(@entry::jsonb)) END)::text`;

/**
 * The fold decisions of one agent are taken one at a time: READ COMMITTED gives each statement the
 * rows committed when it starts, so two requests deciding at once would each find no window target
 * and both queue. This lock (until commit) comes in its own statement before the decision, whose
 * snapshot then holds every earlier decision for the agent. SQLite's one writer decides one request
 * at a time already.
 *
 * A request bound to its task (not `anyTask`) can fold only into work on that task, and a request
 * made later is never the oldest in the window, so it need not wait for requests on the agent's
 * other tasks: it holds the agent's key shared and its (agent, task) key alone. A request that may
 * fold whatever the task holds the agent's key alone, and so waits for all of them. Keys are always
 * taken agent first, so no two requests wait for each other.
 */
const FOLD_KEY = (suffix: string) => `hashtextextended('office.fold:' || @agent${suffix}, 0)`;
const LOCK_AGENT_FOLDS = `SELECT pg_advisory_xact_lock(${FOLD_KEY('')})`;
const LOCK_TASK_FOLDS = `SELECT pg_advisory_xact_lock_shared(${FOLD_KEY('')}), pg_advisory_xact_lock(${FOLD_KEY(" || ':' || @task")})`;

/** The fold lock `wakeup` takes before its decision under `fold` (FOLD_KEY), as a statement and its parameters. */
function foldLock(wakeup: Wakeup, fold: FoldRule): [string, Record<string, unknown>] {
  return foldsOnItsTask(wakeup, fold)
    ? [LOCK_TASK_FOLDS, { agent: wakeup.agent_id, task: wakeup.task_id }]
    : [LOCK_AGENT_FOLDS, { agent: wakeup.agent_id }];
}

/**
 * The routine-run counters a request that may need a slot reads in its decision: locked (both, made
 * if missing) in a statement before it, in the counters' one order, so that the decision's snapshot
 * holds every slot taken before and none is taken until this transaction ends. SQLite's one writer
 * needs no lock.
 */
const LOCK_SLOTS = raiseBothBy(POSTGRES_TEXT, '@agent', 0);

/** The shared statements (../sql/wakeups.ts) on this backend's connection, with the slot and fold locks before a decision. */
export class PgWakeups extends WakeupsSql {
  constructor(sql: PgConnection) { super(postgresDialect(sql), APPEND_WAKE); }

  protected override async insertOrFoldRow(wakeup: Wakeup, fold: FoldRule | null, slot: EnqueueSlot | null) {
    // The locks leave in the same write as the statement that needs them: nothing waits for their answer.
    // The counters first: a fire takes them before its enqueue's fold lock, too.
    const [, , stored] = await Promise.all([
      slot && needsCapSlot(wakeup) ? this.sql.get(LOCK_SLOTS, { agent: wakeup.agent_id }) : null,
      fold === null ? null : this.sql.get(...foldLock(wakeup, fold)),
      super.insertOrFoldRow(wakeup, fold, slot),
    ]);
    return stored;
  }
}
