/**
 * Signals between replicas on PostgreSQL: LISTEN/NOTIFY on one dedicated connection per replica.
 *
 * - `office_wakeups`: a wakeup became claimable (migration 0017's triggers send it from the
 *   statement that writes the row, so it is delivered on commit only). The replica that holds the
 *   agent offers it to the agent actor. A wakeup this process wrote was offered in-process after its
 *   commit already: notifications from this process's own pooled connections are dropped here.
 * - `office_relay`: small messages a replica sends to all the others after commit (its live feed's
 *   entries); a replica drops its own. A replica that knows of no other sends none: each says it
 *   is here when it starts listening (and others answer), so a lone replica spends no NOTIFY,
 *   nor the parsing of its own, on every wakeup.
 * - `office_outbox`: a replica claimed outbox events until some time (outbox.ts sends it from the
 *   statement that writes, takes or renews the claim). If it dies, its claim expires then, and the
 *   others take the events at that deadline: no replica polls the outbox.
 *
 * Idle, this runs no SQL: LISTEN is a held connection, not a poll. If the connection drops, it is
 * opened again with a backoff, and the handlers hear `reconnected`: notifications sent meanwhile are
 * lost, so what they would have said must be read again from the rows.
 */
import pg from 'pg';
import type { Logger } from 'pino';
import { backoffDelayMs } from '../../domain/backoff.js';
import type { Clock } from '../../domain/clock.js';

export const WAKEUP_CHANNEL = 'office_wakeups';
export const RELAY_CHANNEL = 'office_relay';
export const OUTBOX_CHANNEL = 'office_outbox';

/** NOTIFY refuses payloads of 8000 bytes or more: relayed messages are sent in batches below this. */
export const MAX_RELAY_BYTES = 7_000;
/**
 * A busy replica's relays go out at most this often: each NOTIFY is a commit of its own, and one per
 * event-loop turn cost more commits than the wakeups themselves. A live feed can wait this long.
 */
export const RELAY_PACE_MS = 20;
/** How long the listener waits before each attempt to open its connection again, the last repeated. */
const RECONNECT_STEPS_MS = [100, 250, 500, 1_000, 2_000, 5_000];

/** A wakeup that became claimable, as migration 0017 sends it. */
export interface WakeupSignal {
  agentId: string;
  wakeupId: string;
  availableAt: number;
}

export interface SignalHandlers {
  /** A wakeup another process made claimable was committed. */
  wakeupQueued(signal: WakeupSignal): void;
  /** Messages another replica relayed, in the order it sent them. */
  relayed(messages: unknown[]): void;
  /** Another replica holds outbox events until `until` (its clock's ms): they are anyone's after that, if it died. */
  outboxClaimed(claim: { owner: string; until: number }): void;
  /**
   * Listening (again, after the connection was lost: `reconnected`). Whatever was signalled before
   * is not heard: read again what it would have said.
   */
  listening(reconnected: boolean): Promise<void>;
}

export interface PgSignalsOptions {
  url: string;
  /** This replica's id: its own relayed messages come back to it, and are dropped. */
  replica: string;
  /** Whether a server process (by pid) is one of this process's pooled connections. */
  isOwnBackend: (pid: number) => boolean;
  /** The store's statement counter: LISTEN and the relay's NOTIFYs are statements too. */
  counter: { statements: number };
  timers: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
  log: Pick<Logger, 'info' | 'warn' | 'error'>;
  random?: () => number;
}

interface RelayEnvelope {
  replica: string;
  messages: unknown[];
  /** Presence: `ask` when a replica starts listening (every other answers `here`). */
  presence?: 'ask' | 'here';
}

export class PgSignals {
  private client: pg.Client | null = null;
  private handlers: SignalHandlers | null = null;
  private outgoing: unknown[] = [];
  private flushing = false;
  /** The batch being sent: the next waits for it, since one connection runs one query at a time. */
  private sending: Promise<void> = Promise.resolve();
  private failedAttempts = 0;
  private reconnectTimer: unknown = null;
  private everListened = false;
  private closed = false;
  /** The other replicas heard on the relay channel: while there is none, nothing is relayed. */
  private readonly peers = new Set<string>();
  /** When the last batch went out (real time; see RELAY_PACE_MS). */
  private lastFlushAt = 0;

  constructor(private readonly options: PgSignalsOptions) {}

  /** Opens the connection and listens; a first connection that fails is tried again like a dropped one. */
  async start(handlers: SignalHandlers): Promise<void> {
    this.handlers = handlers;
    await this.connect();
  }

  /** Sends `message` to every other replica, after the current turn (one NOTIFY per batch). Dropped while disconnected: live only. */
  publish(message: unknown): void {
    if (this.closed || this.peers.size === 0) return;
    this.outgoing.push(message);
    if (!this.flushing) {
      this.flushing = true;
      // Pacing of a connection, not the scheduler's time: the real clock, whatever clock the scheduler was given.
      const wait = Math.max(0, this.lastFlushAt + RELAY_PACE_MS - Date.now());
      const send = () => {
        this.sending = this.sending.then(() => this.flush());
      };
      if (wait === 0) setImmediate(send);
      else setTimeout(send, wait).unref();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.options.timers.clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    // Named, so that an operator (or a test) can find it in pg_stat_activity.
    const client = new pg.Client({ connectionString: this.options.url, application_name: signalsApplicationName(this.options.replica) });
    client.on('notification', (notification) => this.received(notification));
    // A terminated backend or a broken socket: 'error' then 'end'; either one starts the reconnect.
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, null));
    // The current connection from the start: a drop at any point after this starts the reconnect.
    this.client = client;
    try {
      await client.connect();
      this.options.counter.statements += 3;
      await client.query(`LISTEN ${WAKEUP_CHANNEL}; LISTEN ${RELAY_CHANNEL}; LISTEN ${OUTBOX_CHANNEL}`);
    } catch (error) {
      this.lost(client, error);
      return;
    }
    if (this.client !== client) return; // dropped (or closed) while it connected: the reconnect is armed
    // A first connection that took retries also missed what was signalled meanwhile.
    const reconnected = this.everListened || this.failedAttempts > 0;
    this.everListened = true;
    this.failedAttempts = 0;
    this.announce('ask');
    if (reconnected) this.options.log.info({ replica: this.options.replica }, 'listening for other replicas\' signals again; re-reading what may have been missed');
    await this.handlers?.listening(reconnected).catch((error: unknown) =>
      this.options.log.warn({ err: error }, 'reading what was signalled before listening failed'));
  }

  private lost(client: pg.Client, error: unknown): void {
    if (this.client !== client) return;
    this.client = null;
    client.removeAllListeners('notification');
    client.end().catch(() => undefined);
    if (this.closed) return;
    this.retryLater(error);
  }

  private retryLater(error: unknown): void {
    if (this.closed || this.reconnectTimer !== null) return;
    const delay = backoffDelayMs(this.failedAttempts++, RECONNECT_STEPS_MS, 0.2, this.options.random ?? Math.random);
    this.options.log.warn({ err: error, replica: this.options.replica, retry_in_ms: delay },
      'the connection listening for other replicas\' signals is down; opening it again');
    this.reconnectTimer = this.options.timers.setTimeout(() => {
      this.reconnectTimer = null;
      void this.connect();
    }, delay);
  }

  private received(notification: pg.Notification): void {
    if (!this.handlers || notification.payload === undefined) return;
    try {
      if (notification.channel === WAKEUP_CHANNEL) {
        // Offered in-process after its commit already, by the process that wrote it.
        if (this.options.isOwnBackend(notification.processId)) return;
        const signal = JSON.parse(notification.payload) as { agent_id: string; wakeup_id: string; available_at: number };
        this.handlers.wakeupQueued({ agentId: signal.agent_id, wakeupId: signal.wakeup_id, availableAt: Number(signal.available_at) });
      } else if (notification.channel === RELAY_CHANNEL) {
        // This replica's own relay, back from the server: not even parsed.
        if (notification.processId === this.backendPid()) return;
        const envelope = JSON.parse(notification.payload) as RelayEnvelope;
        if (envelope.replica === this.options.replica) return;
        this.peers.add(envelope.replica);
        if (envelope.presence === 'ask') this.announce('here');
        if (envelope.messages.length > 0) this.handlers.relayed(envelope.messages);
      } else if (notification.channel === OUTBOX_CHANNEL) {
        const claim = JSON.parse(notification.payload) as { owner: string; until: number };
        if (claim.owner !== this.options.replica) this.handlers.outboxClaimed({ owner: claim.owner, until: Number(claim.until) });
      }
    } catch (error) {
      this.options.log.error({ err: error, channel: notification.channel }, 'a signal from another replica could not be handled');
    }
  }

  /** Tells the other replicas this one listens (`ask`: and asks them to say so too). */
  private announce(presence: 'ask' | 'here'): void {
    const client = this.client;
    if (!client) return;
    const payload = JSON.stringify({ replica: this.options.replica, messages: [], presence } satisfies RelayEnvelope);
    this.sending = this.sending.then(async () => {
      this.options.counter.statements++;
      await client.query('SELECT pg_notify($1, $2)', [RELAY_CHANNEL, payload]).catch((error: unknown) =>
        this.options.log.warn({ err: error }, 'telling the other replicas this one listens failed; they hear of it when it next connects'));
    });
  }

  private backendPid(): number | undefined {
    return (this.client as unknown as { processID?: number } | null)?.processID;
  }

  /** Sends the queued messages in envelopes under MAX_RELAY_BYTES; a message too large alone is dropped, loudly. */
  private async flush(): Promise<void> {
    const messages = this.outgoing.splice(0);
    this.flushing = false;
    this.lastFlushAt = Date.now();
    const client = this.client;
    if (!client) return;
    for (const payload of envelopes(this.options.replica, messages, (message) =>
      this.options.log.warn({ bytes: JSON.stringify(message).length }, 'a relayed message is over NOTIFY\'s payload limit; it is not relayed'))) {
      try {
        this.options.counter.statements++;
        await client.query('SELECT pg_notify($1, $2)', [RELAY_CHANNEL, payload]);
      } catch (error) {
        // The connection broke: the listener reconnects on its own; the live feed is live only.
        this.options.log.warn({ err: error }, 'relaying to the other replicas failed');
        return;
      }
    }
  }
}

/** The application_name of a replica's listening connection (PostgreSQL keeps 63 bytes of it). */
export function signalsApplicationName(replica: string): string {
  return `office-signals ${replica}`.slice(0, 63);
}

/** The envelopes (JSON text) that carry `messages` in order, each under MAX_RELAY_BYTES. */
export function envelopes(replica: string, messages: readonly unknown[], tooLarge: (message: unknown) => void): string[] {
  const head = JSON.stringify({ replica, messages: [] }).length;
  const out: string[] = [];
  let batch: string[] = [];
  let bytes = head;
  const close = () => {
    if (batch.length > 0) out.push(`{"replica":${JSON.stringify(replica)},"messages":[${batch.join(',')}]}`);
    batch = [];
    bytes = head;
  };
  for (const message of messages) {
    const text = JSON.stringify(message);
    const size = Buffer.byteLength(text) + 1;
    if (head + size > MAX_RELAY_BYTES) {
      tooLarge(message);
      continue;
    }
    if (bytes + size > MAX_RELAY_BYTES) close();
    batch.push(text);
    bytes += size;
  }
  close();
  return out;
}
