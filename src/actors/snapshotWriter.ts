import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { Store } from '../persistence/store.js';

/**
 * Stores actor snapshots after they change: every actor that moved since the last write is saved
 * in one transaction on the next turn of the event loop, so a burst of transitions costs one write.
 * Snapshots are a cache over the rows; a failed write costs only a slower reconcile after restart.
 * An actor that comes back to the state last stored (an agent idle again after a run) costs no
 * write: `fingerprint` says which snapshots count as the same. The writer keeps a digest of each
 * fingerprint, not the text: one per actor for the life of the process, a few hundred bytes each
 * as text (7 MB at 20,000 actors), 28 characters as a digest.
 */
/**
 * Snapshots taken and stored per transaction. A boot marks every actor at once (20,000 at 10,000
 * agents and routines): taken together, their copies and texts would all be alive at the same time,
 * tens of MB that the heap grows for and keeps; a few hundred at a time cost a few transactions more.
 */
const SNAPSHOT_BATCH = 500;

export class SnapshotWriter {
  private readonly dirty = new Set<string>();
  private flushing: Promise<void> | null = null;
  /** The digest of the fingerprint of the snapshot last stored for each actor by this writer. */
  private readonly stored = new Map<string, string>();

  constructor(
    private readonly deps: { store: Store; clock: Clock; log: Logger },
    private readonly kind: string,
    private readonly snapshotOf: (actorId: string) => unknown | undefined,
    private readonly fingerprint: (snapshot: unknown) => string = (snapshot) => JSON.stringify(snapshot),
  ) {}

  /** The actor's row was deleted: its next snapshot is written whatever it holds. */
  forget(actorId: string): void {
    this.stored.delete(actorId);
  }

  markDirty(actorId: string): void {
    this.dirty.add(actorId);
    this.scheduleWrite();
  }

  private scheduleWrite(): void {
    if (!this.flushing) this.flushing = new Promise((resolve) => setImmediate(resolve)).then(() => this.writeNow());
  }

  /** Waits until every change so far is stored (tests and shutdown). */
  async flush(): Promise<void> {
    while (this.flushing || this.dirty.size > 0) {
      await (this.flushing ??= this.writeNow());
    }
  }

  private async writeNow(): Promise<void> {
    const ids = [...this.dirty];
    this.dirty.clear();
    try {
      for (let i = 0; i < ids.length; i += SNAPSHOT_BATCH) await this.write(ids.slice(i, i + SNAPSHOT_BATCH));
    } finally {
      this.flushing = null;
      // Changes marked while the batches were written: stored on the next turn, not left until the next change.
      if (this.dirty.size > 0) this.scheduleWrite();
    }
  }

  /** Never throws: a batch that fails (taking a snapshot, or storing them) is logged, and the next batches still go. */
  private async write(ids: string[]): Promise<void> {
    try {
      const changed = ids.flatMap((id) => {
        const snapshot = this.snapshotOf(id);
        if (snapshot === undefined) return [];
        const fingerprint = digestOf(this.fingerprint(snapshot));
        return this.stored.get(id) === fingerprint ? [] : [{ id, snapshot, fingerprint }];
      });
      if (changed.length > 0) {
        const entries = changed.map(({ id, snapshot }) => ({ actor_id: id, kind: this.kind, snapshot }));
        await this.deps.store.transaction((tx) => tx.snapshots.save(entries, this.deps.clock.now()));
        for (const { id, fingerprint } of changed) this.stored.set(id, fingerprint);
      }
    } catch (error) {
      this.deps.log.warn({ err: error, kind: this.kind }, 'could not store actor snapshots');
    }
  }
}

/** SHA-1 is for telling snapshots apart, not for security: a collision would cost one skipped cache write. */
function digestOf(text: string): string {
  return createHash('sha1').update(text).digest('base64');
}
