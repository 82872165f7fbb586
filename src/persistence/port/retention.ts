/**
 * Pruning old history (the port's rules: persistence/store.ts).
 *
 * Isolation: each call is one statement. A prune deletes at most `limit` rows that its WHERE finds
 * old enough and referenced by nothing kept, so a batch holds its locks for one short statement and
 * two replicas pruning at once delete each row once.
 */
import type { RetentionTable } from '../../domain/retention.js';

export interface RetentionRepo {
  /**
   * Starts a pass if none started in the last `everyMs` (one guarded UPDATE of the pass row): true
   * for the one replica whose statement moved it, false for every other.
   */
  beginPass(owner: string, now: number, everyMs: number): Promise<boolean>;
  /** Deletes up to `limit` of the table's rows that ended before `cutoff` and that nothing kept refers to; how many went. */
  prune(table: RetentionTable, cutoff: number, limit: number): Promise<number>;
}
