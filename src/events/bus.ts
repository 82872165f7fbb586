import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import { NO_OUTBOX_ROW, type DomainEvent, type EventOf, type EventType } from '../domain/events.js';
import type { Tx } from '../persistence/store.js';

export type Subscriber<K extends EventType> = (event: EventOf<K>) => Promise<void> | void;
/** Writes in the emitting transaction (a wakeup producer): what it writes commits with the event. */
export type TransactionalSubscriber<K extends EventType> = (tx: Tx, event: EventOf<K>) => Promise<void>;

/**
 * How long a failed subscriber waits before it is tried again, while the process runs. Four retries
 * (five tries in all) over about three minutes ride out a passing failure, such as a busy or briefly
 * full disk; an event that fails all of them is poisoned, and is parked rather than left to fail
 * again at every boot and block nothing but itself for ever.
 */
export const SUBSCRIBER_RETRY_DELAYS_MS: readonly number[] = [1_000, 5_000, 30_000, 120_000];

/** How many undelivered events one take from the outbox claims. */
export const OUTBOX_BATCH = 500;

/**
 * Several replicas (PostgreSQL): how long a replica's claim on the outbox events it writes or takes
 * lasts without renewal. It renews the claims of the events it is still delivering every third of
 * this; when it dies, another replica delivers them this long after its last renewal at most.
 */
export const OUTBOX_CLAIM_MS = 10_000;

export interface EventBusOptions {
  /** Retry waits are deadlines on this clock (tests drive it by hand). */
  clock: Clock;
  /** Records an event that failed every try: its outbox row is not replayed any more, and a person is told. */
  park: (event: DomainEvent, error: unknown) => Promise<void>;
  /** Opens a write transaction: a replayed event's in-transaction subscribers run in one of their own (needed by `within`). */
  transaction?: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
  retryDelaysMs?: readonly number[];
  /**
   * Several replicas (PostgreSQL): this owner's claims on outbox events expire after `durationMs`
   * unless renewed. Events it takes are claimed for that long, and the claims of the events it is
   * still delivering are renewed every third of it (no SQL while it delivers nothing). Absent: a
   * claim lasts as long as its owner (SQLite's one process).
   */
  claims?: { owner: string; durationMs: number } | undefined;
}

interface Failure {
  subscriber: Subscriber<EventType>;
  error: unknown;
}

/**
 * The in-process bus for committed domain events. Once every subscriber has handled an event it is
 * acknowledged, and its outbox row can go. A subscriber that fails is tried again after a backoff
 * (only that subscriber); after the last retry the event is parked. A crash, or a stop while an
 * event waits for its retry, leaves the row in the outbox: the next boot delivers it again.
 */
export class EventBus {
  private readonly subscribers = new Map<EventType, Subscriber<EventType>[]>();
  private readonly transactional = new Map<EventType, TransactionalSubscriber<EventType>[]>();
  private readonly retryDelaysMs: readonly number[];
  /** Retry waits in progress: each timer handle with the function that ends its wait early. */
  private readonly retryWaits = new Map<unknown, () => void>();
  private stopped = false;
  private pending = 0;
  /** Outbox ids of the events being delivered, whose claims are renewed (with `claims`). */
  private readonly claimed = new Set<number>();
  private renewTimer: unknown = null;
  /** Told of every committed event, handled or not (the relay to other replicas): never a reason for an outbox row. */
  private readonly observers: ((events: readonly DomainEvent[]) => void)[] = [];
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly log: Logger,
    private readonly acknowledge: (eventIds: number[]) => void,
    private readonly options: EventBusOptions,
  ) {
    this.retryDelaysMs = options.retryDelaysMs ?? SUBSCRIBER_RETRY_DELAYS_MS;
  }

  on<K extends EventType>(type: K, subscriber: Subscriber<K>): () => void {
    const list = this.subscribers.get(type) ?? [];
    list.push(subscriber as Subscriber<EventType>);
    this.subscribers.set(type, list);
    return () => {
      const index = list.indexOf(subscriber as Subscriber<EventType>);
      if (index >= 0) list.splice(index, 1);
    };
  }

  /**
   * A subscriber that runs inside the transaction that emits the event (the store calls runWithin),
   * so it needs no outbox row: nothing is lost between commit and delivery. An event replayed from
   * the outbox (written before this subscriber ran in-transaction) reaches it in its own transaction.
   */
  within<K extends EventType>(type: K, subscriber: TransactionalSubscriber<K>): void {
    if (!this.options.transaction) throw new Error(`an in-transaction subscriber of ${type} needs the bus's transaction option, to handle replayed events`);
    const list = this.transactional.get(type) ?? [];
    list.push(subscriber as TransactionalSubscriber<EventType>);
    this.transactional.set(type, list);
  }

  /**
   * Watches every committed event as it is published, without handling it: nothing is retried or
   * acknowledged for it, and no event gets an outbox row for it. Returns how to stop watching.
   */
  observe(observer: (events: readonly DomainEvent[]) => void): () => void {
    this.observers.push(observer);
    return () => {
      const index = this.observers.indexOf(observer);
      if (index >= 0) this.observers.splice(index, 1);
    };
  }

  /** Whether events of this type need an outbox row: some subscriber handles them after commit. */
  needsOutbox(type: EventType): boolean {
    return (this.subscribers.get(type)?.length ?? 0) > 0;
  }

  /** The store calls this inside the emitting transaction, before it commits. */
  async runWithin(tx: Tx, event: DomainEvent): Promise<void> {
    for (const subscriber of this.transactional.get(event.type) ?? []) await subscriber(tx, event);
  }

  /**
   * At boot: takes the events earlier owners left in the outbox for `owner`, a batch at a time,
   * oldest first (with SQLite every other owner is dead: `takeOver`), and delivers them like committed
   * ones. The claim lasts as long as this owner; events it writes meanwhile are its own already, so
   * no batch returns one. Returns how many it took.
   */
  async replayUndelivered(owner: string, options: { batchSize?: number; takeOver: boolean }): Promise<number> {
    const { transaction, claims } = this.options;
    if (!transaction) throw new Error('taking undelivered events needs the bus\'s transaction option');
    const limit = options.batchSize ?? OUTBOX_BATCH;
    let taken = 0;
    for (;;) {
      const now = this.options.clock.now();
      const claimUntil = claims ? now + claims.durationMs : null;
      const batch = await transaction((tx) => tx.outbox.take(owner, { limit, now, claimUntil, takeOver: options.takeOver }));
      taken += batch.length;
      this.replay(batch);
      if (batch.length < limit) break;
    }
    if (taken > 0) this.log.info({ owner, events: taken }, 'took undelivered events from the outbox; delivering them again');
    return taken;
  }

  /** Events taken from the outbox: delivered like committed ones, their in-transaction subscribers included. */
  replay(events: DomainEvent[]): void {
    for (const event of events) {
      this.pending++;
      void this.deliver(event, true);
    }
  }

  /**
   * Called by the store after a commit; never before. Subscribers of every event are started in
   * commit order, without waiting for the previous event's subscribers to finish: each opens its
   * transaction before it awaits anything, and the store runs transactions in the order they are
   * opened, so their writes land in event order while the store can group them into one commit.
   */
  publish(events: DomainEvent[]): void {
    for (const observer of this.observers) observer(events);
    for (const event of events) {
      this.pending++;
      void this.deliver(event);
    }
  }

  /** Resolves once every published event has been handled, parked, or left for the next boot by stop(). */
  idle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * No more retries: the timers are cleared, and events waiting for a retry stay in the outbox for
   * the next boot. An event published after this is still delivered once.
   */
  stop(): void {
    this.stopped = true;
    for (const [handle, endWait] of this.retryWaits) {
      this.options.clock.clearTimeout(handle);
      endWait();
    }
    this.retryWaits.clear();
    this.options.clock.clearTimeout(this.renewTimer);
    this.renewTimer = null;
  }

  /** Keeps this owner's claims on the events it is delivering (a retry can wait minutes) until they are acknowledged. */
  private holdClaim(eventId: number): void {
    if (!this.options.claims || eventId === NO_OUTBOX_ROW) return;
    this.claimed.add(eventId);
    this.armRenewal();
  }

  private armRenewal(): void {
    const { claims, clock } = this.options;
    if (!claims || this.renewTimer !== null || this.stopped) return;
    this.renewTimer = clock.setTimeout(() => {
      this.renewTimer = null;
      void this.renewClaims();
    }, Math.max(1, Math.floor(claims.durationMs / 3)));
  }

  /** One statement while some event is still being delivered; none once they all were. */
  private async renewClaims(): Promise<void> {
    const { claims, transaction, clock } = this.options;
    if (!claims || !transaction || this.claimed.size === 0) return;
    const ids = [...this.claimed];
    const until = clock.now() + claims.durationMs;
    try {
      await transaction((tx) => tx.outbox.renew(claims.owner, ids, until));
    } catch (error) {
      this.log.warn({ err: error, events: ids.length }, 'renewing the claims on the events being delivered failed; another replica may deliver them too once they expire');
    }
    if (this.claimed.size > 0) this.armRenewal();
  }

  private async deliver(event: DomainEvent, replayed = false): Promise<void> {
    this.holdClaim(event.id);
    let subscribers = [...(this.subscribers.get(event.type) ?? [])];
    const { transaction } = this.options;
    if (replayed && transaction && this.transactional.has(event.type)) {
      subscribers.push(() => transaction((tx) => this.runWithin(tx, event)));
    }
    for (let attempt = 1; ; attempt++) {
      const failures = await this.runAll(subscribers, event, attempt);
      if (failures.length === 0) {
        if (event.id !== NO_OUTBOX_ROW) this.acknowledge([event.id]);
        break;
      }
      const delay = this.retryDelaysMs[attempt - 1];
      if (delay === undefined) {
        await this.parkSafely(event, failures[0]!.error, attempt);
        break;
      }
      if (!(await this.waitForRetry(delay))) break;
      subscribers = failures.map((failure) => failure.subscriber);
    }
    this.claimed.delete(event.id);
    this.pending--;
    if (this.pending === 0) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  private async runAll(subscribers: Subscriber<EventType>[], event: DomainEvent, attempt: number): Promise<Failure[]> {
    const outcomes = await Promise.all(subscribers.map((subscriber) => this.run(subscriber, event, attempt)));
    return outcomes.filter((failure): failure is Failure => failure !== null);
  }

  private async run(subscriber: Subscriber<EventType>, event: DomainEvent, attempt: number): Promise<Failure | null> {
    try {
      await subscriber(event);
      return null;
    } catch (error) {
      // One subscriber's failure must not starve the others or wedge the bus; it is logged loudly.
      const next = this.retryDelaysMs[attempt - 1];
      this.log.error({ err: error, event_type: event.type, event_id: event.id, attempt },
        next === undefined || this.stopped ? 'event subscriber failed' : `event subscriber failed; retrying in ${next} ms`);
      return { subscriber, error };
    }
  }

  /** True once the delay has passed; false at once, or early, when the bus stops. */
  private waitForRetry(delayMs: number): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    const { clock } = this.options;
    return new Promise((resolve) => {
      // The clock's timers do not keep a stopping process alive (the wall clock unrefs them).
      const handle: unknown = clock.setTimeout(() => {
        this.retryWaits.delete(handle);
        resolve(true);
      }, delayMs);
      this.retryWaits.set(handle, () => resolve(false));
    });
  }

  private async parkSafely(event: DomainEvent, error: unknown, attempts: number): Promise<void> {
    try {
      await this.options.park(event, error);
      this.log.error({ err: error, event_type: event.type, event_id: event.id, attempts }, 'event parked after its last retry; it is no longer replayed');
    } catch (parkError) {
      this.log.error({ err: parkError, event_type: event.type, event_id: event.id }, 'parking the event failed; it stays in the outbox for the next boot');
    }
  }
}
