/**
 * The ports that break the cycles in createScheduler's wiring. Where two parts need each other, the
 * part built first is handed a port, and the port is attached to the other part once it exists:
 *
 * - The store hands each committed transaction's events to the event bus, and the bus reaches the
 *   store to acknowledge, park and replay them: the store gets an EventSink.
 * - The wakeup notifier tells the agent actors of each queued or withdrawn wakeup, and the agent
 *   actors (the supervisor) drive the run pipeline, whose services notify: the notifier gets an
 *   AgentActorsPort.
 * - A routine change tells the trigger actors and the other replicas, and the trigger actors fire
 *   through the routine services that report the changes: those services get a RoutineChangesPort.
 *
 * A port is attached once, to one target, for good. Used before that, or attached twice, it throws,
 * naming itself; createScheduler asserts that every port is attached before it returns, so that a
 * forgotten attachment fails at start-up instead of quietly turning a feature off.
 */
import type { DomainEvent, EventType } from '../domain/events.js';
import type { EventBus } from '../events/bus.js';
import type { AgentActors } from '../events/liveNotifier.js';
import type { Tx } from '../persistence/store.js';
import type { RoutineChangeListener } from '../services/routines/changes.js';

abstract class Port<T extends object> {
  private attached: T | null = null;

  constructor(private readonly name: string) {}

  attach(target: T): void {
    if (this.attached) throw new Error(`${this.name} is attached already: a port forwards to one target, attached once`);
    this.attached = target;
  }

  /** Throws unless attached (createScheduler asks every port before it returns). */
  assertAttached(): void {
    this.target();
  }

  protected target(): T {
    if (!this.attached) throw new Error(`${this.name} was used before it was attached; createScheduler attaches it before it returns`);
    return this.attached;
  }
}

/** The store's hooks for the events of each committed transaction, forwarded to the event bus. */
export class EventSink extends Port<Pick<EventBus, 'publish' | 'needsOutbox' | 'runWithin'>> {
  constructor() {
    super('the event sink (store -> event bus)');
  }

  readonly publish = (events: DomainEvent[]): void => this.target().publish(events);
  readonly durable = (type: EventType): boolean => this.target().needsOutbox(type);
  readonly withinTransaction = (tx: Tx, event: DomainEvent): Promise<void> => this.target().runWithin(tx, event);
}

/** The agent actors as the wakeup notifier reaches them: the supervisor, once it is built. */
export class AgentActorsPort extends Port<AgentActors> implements AgentActors {
  constructor() {
    super('the agent actors port (wakeup notifier -> supervisor)');
  }

  wakeupQueued(agentId: string, wakeupId: string, availableAt: number): void {
    this.target().wakeupQueued(agentId, wakeupId, availableAt);
  }

  wakeupWithdrawn(agentId: string, wakeupId: string): void {
    this.target().wakeupWithdrawn(agentId, wakeupId);
  }

  agentChanged(agentId: string): Promise<void> {
    return this.target().agentChanged(agentId);
  }
}

/** Where the routine services report a changed routine: the trigger actors, the other replicas and the feed, once built. */
export class RoutineChangesPort extends Port<RoutineChangeListener> implements RoutineChangeListener {
  constructor() {
    super('the routine changes port (routine services -> trigger actors)');
  }

  routineChanged(routineId: string): void {
    this.target().routineChanged(routineId);
  }
}

/** Asserts, at the end of the wiring, that every port was attached. */
export function assertAttached(...ports: readonly Port<object>[]): void {
  for (const port of ports) port.assertAttached();
}
