import { createActor, fromTransition, type Actor, type ActorOptions, type AnyActorLogic, type AnyActorRef, type InspectionEvent } from 'xstate';

/**
 * One actor system for all the actors of a registry. An actor created without a parent is the root
 * of a system of its own (a dozen closures, maps and sets: about 1.5 KB, 30 MB at 10,000 agents and
 * 10,000 triggers); created with the host as their parent, the registry's actors share the host's.
 * They stay independent actors, each with its own mailbox, snapshot and subscribers: the host is no
 * machine that spawns them (spawning thousands of children grows quadratically), only their parent.
 *
 * What having a parent changes, and why it is safe here:
 * - an actor's error still reaches its own subscribers, and is reported as unhandled when none of
 *   them listens for errors, as for a root; its error and done events are also relayed to the
 *   parent, and the host drops every event it gets, keeping nothing;
 * - xstate inspects a system through its root: the host takes the inspect option;
 * - the system's scheduler serves xstate delays, which the machines do not use (their deadlines
 *   are child actors on the injected clock), so sharing it shares nothing;
 * - `stop()` refuses a non-root actor: stopActor sends the event xstate stops a child with.
 */
export class ActorHost {
  private readonly host: AnyActorRef;

  constructor(inspect: ((event: InspectionEvent) => void) | undefined) {
    this.host = createActor(dropEveryEvent, inspect ? { inspect } : {}).start();
  }

  createActor<TLogic extends AnyActorLogic>(logic: TLogic, options: ActorOptions<TLogic>): Actor<TLogic> {
    return createActor(logic as AnyActorLogic, { ...options, parent: this.host }) as Actor<TLogic>;
  }

  /**
   * What `stop()` does for a root: the actor stops its children (their cleanup clears their
   * timers), completes its subscribers, and drops every event sent after. Called outside the
   * actor's own transitions, it has stopped when this returns.
   */
  stopActor(actor: AnyActorRef): void {
    actor.send({ type: XSTATE_STOP });
  }

  /** After the registry's actors are stopped. */
  stop(): void {
    this.host.stop();
  }
}

/** xstate's own stop event (its constant is not exported). */
const XSTATE_STOP = 'xstate.stop';

const dropEveryEvent = fromTransition((state: null) => state, null);
