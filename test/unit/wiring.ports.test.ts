import { describe, expect, it, vi } from 'vitest';
import { Later } from '../../src/wiring/later.js';
import { AgentActorsPort, EventSink, RoutineChangesPort, assertAttached } from '../../src/wiring/ports.js';

describe('the ports that break the cycles of the wiring', () => {
  it('forward to what they are attached to', async () => {
    const bus = { publish: vi.fn(), needsOutbox: vi.fn(() => true), runWithin: vi.fn(async () => undefined) };
    const events = new EventSink();
    events.attach(bus);
    events.publish([]);
    expect(events.durable('task.created')).toBe(true);
    expect(bus.publish).toHaveBeenCalledWith([]);
    expect(bus.needsOutbox).toHaveBeenCalledWith('task.created');

    const actors = { wakeupQueued: vi.fn(), wakeupWithdrawn: vi.fn(), agentChanged: vi.fn(async () => undefined) };
    const port = new AgentActorsPort();
    port.attach(actors);
    port.wakeupQueued('agt_1', 'wk_1', 5);
    port.wakeupWithdrawn('agt_1', 'wk_1');
    await port.agentChanged('agt_1');
    expect(actors.wakeupQueued).toHaveBeenCalledWith('agt_1', 'wk_1', 5);
    expect(actors.wakeupWithdrawn).toHaveBeenCalledWith('agt_1', 'wk_1');
    expect(actors.agentChanged).toHaveBeenCalledWith('agt_1');
  });

  it('throw, naming the port, when used before they are attached or attached twice', () => {
    const changes = new RoutineChangesPort();
    expect(() => changes.routineChanged('rtn_1')).toThrow(/routine changes port .* was used before it was attached/);
    expect(() => assertAttached(new EventSink(), changes)).toThrow(/event sink .* was used before it was attached/);
    changes.attach({ routineChanged: vi.fn() });
    expect(() => changes.attach({ routineChanged: vi.fn() })).toThrow(/routine changes port .* is attached already/);
    expect(() => assertAttached(changes)).not.toThrow();
  });
});

describe('Later', () => {
  it('is a promise before the value is known, resolved with the first value given', async () => {
    const url = new Later<string>();
    let seen: string | null = null;
    void url.promise.then((value) => { seen = value; });
    await Promise.resolve();
    expect(seen).toBeNull();
    url.known('http://127.0.0.1:7700');
    url.known('http://127.0.0.1:7701');
    expect(await url.promise).toBe('http://127.0.0.1:7700');
  });
});
