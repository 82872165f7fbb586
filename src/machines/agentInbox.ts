/**
 * The agent actor's inbox: the wakeups waiting to be claimed, in the order they were offered. Its
 * cost per event does not grow with the queue: an offer, a withdrawal and a claim touch only the
 * entries involved, and the next deadline comes from a heap. An array copied or filtered on every
 * event made each wakeup dearer the more were queued behind it.
 *
 * It is owned by one actor and changed only by that actor's actions, in place: the machine is the
 * one writer, and a copy per event is exactly the cost this avoids. A stored snapshot holds only its
 * size (`toJSON`): the rows are the truth, and a restored actor adopts them (RECONCILE). The fields
 * are private (#) so that XState's copy of a snapshot's context does not walk them either.
 */

export interface InboxEntry {
  wakeupId: string;
  /** When it may be claimed: requested time, end of a coalescing hold, or retry time. */
  availableAt: number;
}

/** An inbox as a stored snapshot holds it. */
export interface StoredInbox {
  size: number;
  nextAvailableAt: number | null;
}

interface HeapItem {
  availableAt: number;
  wakeupId: string;
}

/**
 * The entries of every inbox nothing was offered to yet: most agents wait with an empty inbox, and
 * an empty Map of its own costs about 200 bytes (2 MB at 10,000 agents, twice that while a restored
 * actor's initial snapshot is kept). Nothing is ever set in it: the first offer gives the inbox its own.
 */
const NO_ENTRIES: ReadonlyMap<string, number> = new Map();

export class AgentInbox {
  /** Insertion order is offer order: offering an entry again moves it to the back, as a new offer. */
  #entries = NO_ENTRIES as Map<string, number>;
  /** Min-heap on availableAt; items whose entry was withdrawn or re-offered are dropped lazily. */
  readonly #heap: HeapItem[] = [];

  static from(entries: readonly InboxEntry[]): AgentInbox {
    const inbox = new AgentInbox();
    for (const entry of entries) inbox.offer(entry);
    return inbox;
  }

  get size(): number {
    return this.#entries.size;
  }

  offer(entry: InboxEntry): void {
    if (this.#entries === NO_ENTRIES) this.#entries = new Map();
    this.#entries.delete(entry.wakeupId);
    this.#entries.set(entry.wakeupId, entry.availableAt);
    this.#push({ availableAt: entry.availableAt, wakeupId: entry.wakeupId });
  }

  withdraw(wakeupId: string): void {
    this.#entries.delete(wakeupId);
  }

  /**
   * Takes up to `limit` entries available at `now`, oldest offer first, skipping those in `busy`:
   * the running wakeups (a few), one of which may be offered again while its dispatch still ends.
   * It walks past entries that are not available
   * yet, so its cost is the claimed entries plus the held ones ahead of them.
   */
  take(now: number, limit: number, busy: readonly string[]): string[] {
    const taken: string[] = [];
    if (limit <= 0) return taken;
    for (const [wakeupId, availableAt] of this.#entries) {
      if (availableAt > now || busy.includes(wakeupId)) continue;
      taken.push(wakeupId);
      if (taken.length >= limit) break;
    }
    for (const wakeupId of taken) this.#entries.delete(wakeupId);
    return taken;
  }

  /** Entries that may be claimed once available: those not in `busy`. */
  waitingCount(busy: readonly string[]): number {
    let both = 0;
    for (const wakeupId of busy) if (this.#entries.has(wakeupId)) both++;
    return this.#entries.size - both;
  }

  /** The earliest availableAt among waiting entries (not in `busy`), or null when none waits. */
  nextAvailableAt(busy: readonly string[]): number | null {
    this.#dropStaleTop();
    const top = this.#heap[0];
    if (top === undefined) return null;
    if (!busy.includes(top.wakeupId)) return top.availableAt;
    // Rare: the earliest entry was offered again while it still runs. Look at the rest directly.
    let earliest: number | null = null;
    for (const [wakeupId, availableAt] of this.#entries) {
      if (!busy.includes(wakeupId) && (earliest === null || availableAt < earliest)) earliest = availableAt;
    }
    return earliest;
  }

  /**
   * What a stored snapshot keeps: enough for another replica to describe the actor (its API view),
   * while the rows rebuild the entries (see the head of this file).
   */
  toJSON(): StoredInbox {
    return { size: this.#entries.size, nextAvailableAt: this.nextAvailableAt([]) };
  }

  #isStale(item: HeapItem): boolean {
    return this.#entries.get(item.wakeupId) !== item.availableAt;
  }

  #dropStaleTop(): void {
    while (this.#heap.length > 0 && this.#isStale(this.#heap[0]!)) this.#pop();
    // Withdrawn entries deep in the heap would otherwise pile up: rebuild when most items are stale.
    if (this.#heap.length > 64 && this.#heap.length > 4 * this.#entries.size) this.#rebuild();
  }

  #rebuild(): void {
    this.#heap.length = 0;
    for (const [wakeupId, availableAt] of this.#entries) this.#push({ availableAt, wakeupId });
  }

  #push(item: HeapItem): void {
    const heap = this.#heap;
    heap.push(item);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.availableAt <= item.availableAt) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = item;
  }

  #pop(): void {
    const heap = this.#heap;
    const last = heap.pop()!;
    if (heap.length === 0) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && heap[right]!.availableAt < heap[left]!.availableAt ? right : left;
      if (heap[child]!.availableAt >= last.availableAt) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
  }
}
