import { describe, expect, it } from 'vitest';
import { pipelineRetryDelay } from '../../src/actors/supervisor.js';
import { StorageUnavailableError } from '../../src/persistence/storageUnavailable.js';

describe('a wakeup whose pipeline failed is offered again', () => {
  it('after a pause that doubles with each failure, up to an hour', () => {
    const delays = [1, 2, 3, 12, 20].map((attempts) => pipelineRetryDelay(new Error('constraint failed'), attempts));
    expect(delays).toEqual([5_000, 10_000, 20_000, 3_600_000, 3_600_000]);
  });

  it('within 5 s of a storage outage ending, however long the outage lasted', () => {
    const outage = new StorageUnavailableError('SQLITE_FULL', 'database or disk is full');
    expect(pipelineRetryDelay(outage, 1)).toBe(5_000);
    expect(pipelineRetryDelay(outage, 40)).toBe(5_000);
  });
});
