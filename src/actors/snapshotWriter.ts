import type { Logger } from 'pino';
import type { Clock } from '../machines/clock.js';
import type { Store } from '../persistence/store.js';

/**
 * Stores actor snapshots after they change: every actor that moved since the last write is saved
 * in one transaction on the next turn of the event loop, so a burst of transitions costs one write.
 * Snapshots are a cache over the rows; a failed write costs only a slower reconcile after restart.
 */
export class SnapshotWriter {
  private readonly dirty = new Set<string>();
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly deps: { store: Store; clock: Clock; log: Logger },
    private readonly kind: string,
    private readonly snapshotOf: (actorId: string) => unknown | undefined,
  ) {}

  markDirty(actorId: string): void {
    this.dirty.add(actorId);
    if (!this.flushing) this.flushing = new Promise((resolve) => setImmediate(resolve)).then(() => this.writeNow());
  }

  /** Waits until every change so far is stored (tests and shutdown). */
  async flush(): Promise<void> {
    while (this.flushing || this.dirty.size > 0) {
      await (this.flushing ?? this.writeNow());
    }
  }

  private async writeNow(): Promise<void> {
    const ids = [...this.dirty];
    this.dirty.clear();
    const entries = ids.flatMap((id) => {
      const snapshot = this.snapshotOf(id);
      return snapshot === undefined ? [] : [{ actor_id: id, kind: this.kind, snapshot }];
    });
    try {
      if (entries.length > 0) await this.deps.store.transaction((tx) => tx.snapshots.save(entries, this.deps.clock.now()));
    } catch (error) {
      this.deps.log.warn({ err: error, kind: this.kind }, 'could not store actor snapshots');
    } finally {
      this.flushing = null;
    }
  }
}
