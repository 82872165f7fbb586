import { describe, expect, it } from 'vitest';
import { AgentInbox } from '../../src/machines/agentInbox.js';

const none: string[] = [];

describe('the agent inbox', () => {
  it('takes available entries oldest offer first, up to the limit, and leaves held ones in place', () => {
    const inbox = AgentInbox.from([
      { wakeupId: 'held', availableAt: 500 },
      { wakeupId: 'a', availableAt: 100 },
      { wakeupId: 'b', availableAt: 50 },
      { wakeupId: 'c', availableAt: 100 },
    ]);
    expect(inbox.take(100, 2, none)).toEqual(['a', 'b']);
    expect(inbox.take(100, 5, none)).toEqual(['c']);
    expect(inbox.size).toBe(1);
    expect(inbox.nextAvailableAt(none)).toBe(500);
    expect(inbox.take(500, 5, none)).toEqual(['held']);
    expect(inbox.nextAvailableAt(none)).toBeNull();
  });

  it('an entry offered again moves behind the others, with its new time', () => {
    const inbox = AgentInbox.from([{ wakeupId: 'a', availableAt: 10 }, { wakeupId: 'b', availableAt: 10 }]);
    inbox.offer({ wakeupId: 'a', availableAt: 20 });
    expect(inbox.nextAvailableAt(none)).toBe(10);
    expect(inbox.take(20, 5, none)).toEqual(['b', 'a']);
  });

  it('a withdrawn entry is neither taken nor waited for', () => {
    const inbox = AgentInbox.from([{ wakeupId: 'soon', availableAt: 10 }, { wakeupId: 'later', availableAt: 90 }]);
    inbox.withdraw('soon');
    expect(inbox.nextAvailableAt(none)).toBe(90);
    expect(inbox.take(100, 5, none)).toEqual(['later']);
  });

  it('an entry whose dispatch still ends is skipped, not counted as waiting, and not waited for', () => {
    const inbox = AgentInbox.from([{ wakeupId: 'busy', availableAt: 10 }, { wakeupId: 'free', availableAt: 30 }]);
    const busy = ['busy'];
    expect(inbox.waitingCount(['busy'])).toBe(1);
    expect(inbox.nextAvailableAt(busy)).toBe(30);
    expect(inbox.take(100, 5, busy)).toEqual(['free']);
    expect(inbox.waitingCount(['busy'])).toBe(0);
  });

  it('keeps the next deadline right through many withdrawals (the heap drops stale items)', () => {
    const inbox = AgentInbox.from(Array.from({ length: 1000 }, (_, i) => ({ wakeupId: `w${i}`, availableAt: 1000 - i })));
    for (let i = 999; i > 10; i--) inbox.withdraw(`w${i}`);
    expect(inbox.size).toBe(11);
    expect(inbox.nextAvailableAt(none)).toBe(990);
  });

  it('a stored snapshot holds its size and next deadline, not its entries', () => {
    const inbox = AgentInbox.from(Array.from({ length: 3000 }, (_, i) => ({ wakeupId: `w${i}`, availableAt: 5 + i })));
    expect(JSON.stringify({ inbox })).toBe('{"inbox":{"size":3000,"nextAvailableAt":5}}');
  });
});
