/**
 * What a replica relays to the others goes out in NOTIFY payloads, which PostgreSQL refuses at 8000
 * bytes: messages are packed in order into envelopes under the limit, and one too large alone is
 * left out (and reported) rather than failing the whole batch.
 */
import { describe, expect, it } from 'vitest';
import { MAX_RELAY_BYTES, envelopes } from '../../src/persistence/postgres/notify.js';

const NOTIFY_LIMIT_BYTES = 8000;

describe('relay envelopes', () => {
  it('pack messages in order into payloads under NOTIFY\'s limit, and leave out one too large alone', () => {
    const messages = Array.from({ length: 500 }, (_, i) => ({ kind: 'run', run_id: `run_${i}`, agent_id: 'agt_1', status: 'ended', note: 'é'.repeat(i % 40) }));
    const huge = { kind: 'actor', agent_id: 'agt_2', view: { blob: 'x'.repeat(NOTIFY_LIMIT_BYTES) } };
    const tooLarge: unknown[] = [];
    const payloads = envelopes('replica-a', [...messages.slice(0, 250), huge, ...messages.slice(250)], (message) => tooLarge.push(message));

    expect(payloads.length).toBeGreaterThan(1);
    for (const payload of payloads) expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(MAX_RELAY_BYTES);
    expect(MAX_RELAY_BYTES).toBeLessThan(NOTIFY_LIMIT_BYTES);
    const unpacked = payloads.map((payload) => JSON.parse(payload) as { replica: string; messages: unknown[] });
    expect(unpacked.every((envelope) => envelope.replica === 'replica-a')).toBe(true);
    expect(unpacked.flatMap((envelope) => envelope.messages)).toEqual(messages);
    expect(tooLarge).toEqual([huge]);
  });
});
