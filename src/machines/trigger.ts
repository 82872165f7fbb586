/**
 * The trigger actor: one per enabled schedule trigger. It waits for the stored next fire time
 * (plus the routine's stable jitter) and then asks the injected `fireDue` to claim and fire every
 * tick that is due. The claim is an atomic compare-and-set on next_run_at in the database, so a
 * restart at the very instant of a fire, or a second actor for the same trigger, fires once.
 *
 * `waiting` sleeps on the absolute deadline (restored actors wait only for what is left);
 * `firing` runs the claim; `dormant` has no deadline (a cron that never fires again).
 */
import { assign, fromPromise, setup, type CallbackActorLogic } from 'xstate';
import type { DeadlineInput } from './sleepUntil.js';

export interface TriggerContext {
  triggerId: string;
  /** The tick the database says is next (unix ms), or null when none is left. */
  nextRunAt: number | null;
  /** Stable per-routine offset that spreads herds at minute boundaries. */
  jitterMs: number;
  /** After a failed attempt: not before this time. */
  notBefore: number | null;
  /** Consecutive failed attempts, for the injected fireDue's backoff. */
  failures: number;
}

export type TriggerEvent =
  | { type: 'RESCHEDULE'; nextRunAt: number | null; jitterMs: number }
  | { type: 'TIMER'; at: number };

export interface FireDueInput {
  triggerId: string;
  expectedNextRunAt: number;
  failures: number;
}

/** fireDue never rejects: a failed attempt answers with the same tick and a time to try again. */
export interface FireDueOutput {
  nextRunAt: number | null;
  notBefore: number | null;
  failed: boolean;
}

export const triggerMachine = setup({
  types: {
    context: {} as TriggerContext,
    events: {} as TriggerEvent,
    input: {} as { triggerId: string; nextRunAt: number | null; jitterMs: number },
  },
  actors: {
    sleepUntil: (() => {
      throw new Error('sleepUntil must be provided by src/actors');
    }) as unknown as CallbackActorLogic<{ type: 'noop' }, DeadlineInput>,
    fireDue: fromPromise<FireDueOutput, FireDueInput>(async () => {
      throw new Error('fireDue must be provided by src/actors');
    }),
  },
  guards: {
    hasDeadline: ({ context }) => context.nextRunAt !== null,
  },
}).createMachine({
  id: 'trigger',
  context: ({ input }) => ({ ...input, notBefore: null, failures: 0 }),
  initial: 'routing',
  on: {
    RESCHEDULE: {
      target: '.routing',
      actions: assign(({ event }) => ({ nextRunAt: event.nextRunAt, jitterMs: event.jitterMs, notBefore: null, failures: 0 })),
    },
  },
  states: {
    routing: {
      always: [{ guard: 'hasDeadline', target: 'waiting' }, { target: 'dormant' }],
    },
    waiting: {
      invoke: {
        src: 'sleepUntil',
        id: 'fireTimer',
        input: ({ context }) => ({ deadline: Math.max(context.nextRunAt! + context.jitterMs, context.notBefore ?? 0) }),
      },
      on: { TIMER: 'firing' },
    },
    firing: {
      invoke: {
        src: 'fireDue',
        id: 'fire',
        input: ({ context }) => ({ triggerId: context.triggerId, expectedNextRunAt: context.nextRunAt!, failures: context.failures }),
        onDone: {
          target: 'routing',
          actions: assign(({ context, event }) => ({
            nextRunAt: event.output.nextRunAt,
            notBefore: event.output.notBefore,
            failures: event.output.failed ? context.failures + 1 : 0,
          })),
        },
      },
    },
    dormant: {},
  },
});

export type TriggerMachine = typeof triggerMachine;
