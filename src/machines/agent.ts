/**
 * The agent actor: one per agent instance. It owns the agent's inbox (wakeups waiting to be
 * claimed), its running slots against max_concurrent_sessions, and its cooldown. It decides
 * *when* a wakeup is claimed; the pipeline (src/actors) decides *what* the claim does.
 *
 * Modes:
 * - active: claims the oldest available wakeup while a slot is free and no cooldown runs.
 *   `idle` (nothing queued or running), `working` (sessions run, nothing waits), `atCapacity`, `coolingDown` (until cooldownUntil),
 *   `heldByQuota` (until heldUntil: its program's shared quota resets) and `waiting` (until the next entry's availableAt: a
 *   coalescing hold or a scheduled retry) say why not.
 * - paused / stopped: every available wakeup is claimed at once, ignoring slots and cooldown,
 *   because the pipeline's status guard ends it `finished` with no run (the spec's rule).
 *
 * A wakeup parked behind another run's checkout of its task leaves the inbox (its dispatch ends
 * with no retry) and comes back as WAKEUP_QUEUED when that checkout is released: nothing polls.
 *
 * Every deadline is an absolute timestamp in context, waited on by the `sleepUntil` child, so a
 * snapshot restored after a restart waits only for what is left. Time arrives on events (`at`);
 * the machine never reads a clock.
 */
import { assertEvent, assign, enqueueActions, setup } from 'xstate';
import { AgentInbox, type InboxEntry, type StoredInbox } from './agentInbox.js';
import type { DeadlineInput } from './sleepUntil.js';

export type { InboxEntry } from './agentInbox.js';

export type AgentMode = 'active' | 'paused' | 'stopped';

export interface AgentSettings {
  mode: AgentMode;
  maxConcurrent: number;
  cooldownMs: number;
}

export interface AgentContext extends AgentSettings {
  agentId: string;
  inbox: AgentInbox;
  /** Wakeups handed to the pipeline and not yet ended. */
  running: string[];
  cooldownUntil: number | null;
  /** The agent's program quota is exhausted: nothing is claimed before then (a dispatch said so). */
  heldUntil?: number | null;
  now: number;
}

export type AgentEvent =
  | { type: 'WAKEUP_QUEUED'; entry: InboxEntry; at: number }
  | { type: 'WAKEUP_WITHDRAWN'; wakeupId: string; at: number }
  | { type: 'DISPATCH_ENDED'; wakeupId: string; ranSession: boolean; retryAt: number | null; holdUntil?: number | null; at: number }
  | { type: 'SETTINGS_CHANGED'; settings: AgentSettings; at: number }
  | { type: 'RECONCILE'; settings: AgentSettings; inbox: InboxEntry[]; cooldownUntil: number | null; at: number }
  | { type: 'TIMER'; at: number };

export interface AgentInput {
  agentId: string;
  settings: AgentSettings;
  now: number;
}

const hasFreeSlot = (c: AgentContext) => c.running.length < c.maxConcurrent;
const isCoolingDown = (c: AgentContext) => c.cooldownUntil !== null && c.cooldownUntil > c.now;
const isHeldByQuota = (c: AgentContext) => (c.heldUntil ?? null) !== null && c.heldUntil! > c.now;
/**
 * A wakeup offered again while its dispatch is still ending (parked behind a checkout whose release
 * came first) waits for DISPATCH_ENDED: it is never handed to the pipeline twice at once.
 */
const waitingCount = (c: AgentContext) => c.inbox.waitingCount(c.running);
const nextAvailableAt = (c: AgentContext) => c.inbox.nextAvailableAt(c.running) ?? Infinity;

/** How many wakeups may be claimed right now: every available one when not active, else up to the free slots. */
function claimLimit(c: AgentContext): number {
  if (c.mode !== 'active') return Infinity;
  if (isCoolingDown(c) || isHeldByQuota(c)) return 0;
  return Math.max(0, c.maxConcurrent - c.running.length);
}

export const agentMachine = setup({
  types: {
    context: {} as AgentContext,
    events: {} as AgentEvent,
    input: {} as AgentInput,
  },
  actions: {
    /** Injected: hand one claimed wakeup to the pipeline. */
    dispatch: (_, _params: { wakeupId: string }) => {},
    observeTime: assign({ now: ({ context, event }) => Math.max(context.now, event.at) }),
    // Each action below is written for the events named in its assertEvent: any other event is a bug, and throws.
    addToInbox: assign({
      inbox: ({ context, event }) => {
        assertEvent(event, 'WAKEUP_QUEUED');
        context.inbox.offer(event.entry);
        return context.inbox;
      },
    }),
    removeFromInbox: assign({
      inbox: ({ context, event }) => {
        assertEvent(event, 'WAKEUP_WITHDRAWN');
        context.inbox.withdraw(event.wakeupId);
        return context.inbox;
      },
    }),
    endDispatch: assign(({ context, event }) => {
      assertEvent(event, 'DISPATCH_ENDED');
      const running = context.running.filter((id) => id !== event.wakeupId);
      if (event.retryAt !== null) context.inbox.offer({ wakeupId: event.wakeupId, availableAt: event.retryAt });
      // Cooldown follows a session that actually ran; a skip or a cancel spent nothing.
      const cooldownUntil = event.ranSession && context.cooldownMs > 0
        ? Math.max(context.cooldownUntil ?? 0, event.at + context.cooldownMs)
        : context.cooldownUntil;
      const heldUntil = event.holdUntil != null ? Math.max(context.heldUntil ?? 0, event.holdUntil) : context.heldUntil ?? null;
      return { running, inbox: context.inbox, cooldownUntil, heldUntil };
    }),
    applySettings: assign(({ event }) => {
      assertEvent(event, ['SETTINGS_CHANGED', 'RECONCILE']);
      return { ...event.settings };
    }),
    /** Rows win after a restart: the inbox and cooldown come from the database. */
    adoptRows: assign(({ event }) => {
      assertEvent(event, 'RECONCILE');
      return { inbox: AgentInbox.from(event.inbox), cooldownUntil: event.cooldownUntil, running: [] };
    }),
  },
  actors: {
    /** Injected: waits for an absolute deadline, then sends TIMER. */
    sleepUntil: (() => {
      throw new Error('sleepUntil must be provided by src/actors');
    }) as unknown as import('xstate').CallbackActorLogic<{ type: 'noop' }, DeadlineInput>,
  },
  guards: {
    isPaused: ({ context }) => context.mode === 'paused',
    isStopped: ({ context }) => context.mode === 'stopped',
    inboxEmpty: ({ context }) => waitingCount(context) === 0,
    nothingToDo: ({ context }) => waitingCount(context) === 0 && context.running.length === 0,
    atCapacity: ({ context }) => !hasFreeSlot(context),
    coolingDown: ({ context }) => isCoolingDown(context),
    heldByQuota: ({ context }) => isHeldByQuota(context),
  },
}).createMachine({
  id: 'agent',
  context: ({ input }) => ({
    agentId: input.agentId,
    ...input.settings,
    inbox: new AgentInbox(),
    running: [],
    cooldownUntil: null,
    heldUntil: null,
    now: input.now,
  }),
  initial: 'routing',
  on: {
    WAKEUP_QUEUED: { target: '.routing', actions: ['observeTime', 'addToInbox'] },
    WAKEUP_WITHDRAWN: { target: '.routing', actions: ['observeTime', 'removeFromInbox'] },
    DISPATCH_ENDED: { target: '.routing', actions: ['observeTime', 'endDispatch'] },
    SETTINGS_CHANGED: { target: '.routing', actions: ['observeTime', 'applySettings'] },
    RECONCILE: { target: '.routing', actions: ['observeTime', 'applySettings', 'adoptRows'] },
    TIMER: { target: '.routing', actions: ['observeTime'] },
  },
  states: {
    /** Transient: claim what can be claimed, then settle in the state that says why the rest waits. */
    routing: {
      entry: enqueueActions(({ context, enqueue }) => {
        const ids = context.inbox.take(context.now, claimLimit(context), context.running);
        if (ids.length === 0) return;
        enqueue.assign({ inbox: context.inbox, running: [...context.running, ...ids] });
        for (const wakeupId of ids) enqueue({ type: 'dispatch', params: { wakeupId } });
      }),
      always: [
        { guard: 'isStopped', target: 'stopped' },
        { guard: 'isPaused', target: 'paused' },
        { target: 'active' },
      ],
    },
    active: {
      initial: 'deciding',
      states: {
        deciding: {
          always: [
            { guard: 'nothingToDo', target: 'idle' },
            { guard: 'inboxEmpty', target: 'working' },
            { guard: 'atCapacity', target: 'atCapacity' },
            { guard: 'coolingDown', target: 'coolingDown' },
            { guard: 'heldByQuota', target: 'heldByQuota' },
            { target: 'waiting' },
          ],
        },
        idle: {},
        /** Sessions run and nothing waits. */
        working: {},
        /** Leaves when a running session ends (DISPATCH_ENDED). */
        atCapacity: {},
        coolingDown: {
          invoke: { src: 'sleepUntil', id: 'cooldownTimer', input: ({ context }) => ({ deadline: context.cooldownUntil ?? 0 }) },
        },
        /** Its program's shared quota is exhausted (another agent's session said when it resets). */
        heldByQuota: {
          invoke: { src: 'sleepUntil', id: 'quotaTimer', input: ({ context }) => ({ deadline: context.heldUntil ?? 0 }) },
        },
        waiting: {
          invoke: { src: 'sleepUntil', id: 'availabilityTimer', input: ({ context }) => ({ deadline: nextAvailableAt(context) }) },
        },
      },
    },
    paused: {
      initial: 'draining',
      states: {
        /** Claims each wakeup as it becomes available, so the pipeline can end it with no run. */
        draining: {
          always: { guard: 'inboxEmpty', target: 'idle' },
          invoke: { src: 'sleepUntil', id: 'availabilityTimer', input: ({ context }) => ({ deadline: nextAvailableAt(context) }) },
        },
        idle: {},
      },
    },
    stopped: {
      initial: 'draining',
      states: {
        draining: {
          always: { guard: 'inboxEmpty', target: 'idle' },
          invoke: { src: 'sleepUntil', id: 'availabilityTimer', input: ({ context }) => ({ deadline: nextAvailableAt(context) }) },
        },
        idle: {},
      },
    },
  },
});

export type AgentMachine = typeof agentMachine;

/**
 * A stored snapshot made ready to restore: it kept only the inbox's size, so the actor starts with
 * an empty inbox and adopts the rows' entries on RECONCILE, which the supervisor sends at once.
 */
export function restorableSnapshot(persisted: unknown): unknown {
  const snapshot = persisted as { context?: Record<string, unknown> } | null;
  if (!snapshot || typeof snapshot.context !== 'object' || snapshot.context === null) return persisted;
  return { ...snapshot, context: { ...snapshot.context, inbox: new AgentInbox() } };
}

/**
 * The inbox's part of the view, live or from a stored snapshot (another replica's actor, described
 * from what it stored: the size and next deadline it kept).
 */
function inboxView(context: AgentContext): { queued: number; nextAvailableAt: number | null } {
  if (context.inbox instanceof AgentInbox) {
    const queued = waitingCount(context);
    return { queued, nextAvailableAt: queued > 0 ? nextAvailableAt(context) : null };
  }
  const stored = context.inbox as unknown as Partial<StoredInbox> | undefined;
  return { queued: stored?.size ?? 0, nextAvailableAt: stored?.nextAvailableAt ?? null };
}

/** The view the API shows as `actor` on an agent. */
export function describeAgentActor(snapshot: { value: unknown; context: AgentContext }) {
  const inbox = inboxView(snapshot.context);
  return {
    state: stateName(snapshot.value),
    queued: inbox.queued,
    running: snapshot.context.running.length,
    max_concurrent_sessions: snapshot.context.maxConcurrent,
    cooldown_until: snapshot.context.cooldownUntil !== null && snapshot.context.cooldownUntil > snapshot.context.now
      ? new Date(snapshot.context.cooldownUntil).toISOString()
      : null,
    next_available_at: inbox.nextAvailableAt === null ? null : new Date(inbox.nextAvailableAt).toISOString(),
    quota_held_until: isHeldByQuota(snapshot.context) ? new Date(snapshot.context.heldUntil!).toISOString() : null,
  };
}

export function stateName(value: unknown): string {
  if (typeof value === 'string') return value;
  const [parent, child] = Object.entries(value as Record<string, unknown>)[0] ?? ['unknown', null];
  return child === null ? parent : `${parent}.${stateName(child)}`;
}
