import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock.js';
import type { DomainEvent, EventType } from '../../domain/events.js';
import type { Tx } from '../store.js';
import type { StatementProfile } from './statementProfile.js';

/** What either backend's store is given by createStore, beyond where its database is. */
export interface StoreOptions {
  now: () => number;
  /** Receives the events of each committed transaction, in order. */
  publish: (events: DomainEvent[]) => void;
  /**
   * Whether an event of this type gets an outbox row: it needs one when a subscriber handles it
   * after commit (the row is what a crash replays). Every type does when absent.
   */
  durable?: (type: EventType) => boolean;
  /**
   * The in-transaction subscribers of an event: they run inside the unit that emitted it, after its
   * work and before it commits, so what they write commits or rolls back with it.
   */
  withinTransaction?: (tx: Tx, event: DomainEvent) => Promise<void>;
  /** The owner this process acts as: the outbox rows it writes are claimed by it, since it delivers them itself. */
  owner?: string;
  /** Told about a failure of the store's own machinery (not of a unit of work). */
  onFatal?: (error: unknown) => void;
  /** Timers of the storage probe and the idle checkpoint (the scheduler passes its clock); the wall clock if absent. */
  timers?: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
  /** Storage outages, recoveries and failed checkpoints are logged here; nowhere if absent. */
  log?: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** The bench's statement profile (`npm run bench -- --sql`): every statement and commit is timed into it. None: nothing is timed. */
  statementProfile?: StatementProfile;
}
