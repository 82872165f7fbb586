/**
 * Ids and secrets (services/ids.ts), from entropy drawn in blocks: UUIDv7s that increase within the
 * process, inside one millisecond and when the wall clock steps back; secrets each new.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { validate, version } from 'uuid';
import { newId, newSecret } from '../../src/services/ids.js';

const uuidOf = (id: string) => id.slice(id.indexOf('_') + 1).replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
const timeOf = (id: string) => parseInt(id.slice(id.indexOf('_') + 1, id.indexOf('_') + 13), 16);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('newId', () => {
  it('makes valid version-7 UUIDs behind the prefix, each new, in increasing order across many blocks of entropy', () => {
    const ids = Array.from({ length: 5_000 }, () => newId('wk'));
    for (const id of ids) {
      expect(id).toMatch(/^wk_[0-9a-f]{32}$/);
      expect(validate(uuidOf(id))).toBe(true);
      expect(version(uuidOf(id))).toBe(7);
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('keeps increasing inside one millisecond and when the clock steps back, and dates its ids by the clock', () => {
    const now = vi.spyOn(Date, 'now').mockReturnValue(4_102_444_800_000);
    const sameMillisecond = Array.from({ length: 1_000 }, () => newId('run'));
    now.mockReturnValue(4_102_444_799_000);
    const afterStepBack = Array.from({ length: 10 }, () => newId('run'));
    now.mockReturnValue(4_102_444_801_000);
    const later = newId('run');
    const ids = [...sameMillisecond, ...afterStepBack, later];
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(timeOf(sameMillisecond[0]!)).toBe(4_102_444_800_000);
    expect(timeOf(later)).toBe(4_102_444_801_000);
  });

  it('draws different entropy for every id: no two ids of one millisecond share their random tail', () => {
    vi.spyOn(Date, 'now').mockReturnValue(4_102_444_900_000);
    const tails = Array.from({ length: 600 }, () => newId('t').slice(-12));
    expect(new Set(tails).size).toBe(tails.length);
  });
});

describe('newSecret', () => {
  it('makes URL-safe secrets of the bytes asked for, each new, whether they fit the block of entropy or not', () => {
    const secrets = Array.from({ length: 500 }, () => newSecret());
    for (const secret of secrets) expect(Buffer.from(secret, 'base64url')).toHaveLength(24);
    expect(new Set(secrets).size).toBe(secrets.length);
    expect(secrets.every((secret) => /^[A-Za-z0-9_-]+$/.test(secret))).toBe(true);
    const large = [newSecret(5_000), newSecret(5_000)];
    expect(large.map((secret) => Buffer.from(secret, 'base64url').length)).toEqual([5_000, 5_000]);
    expect(large[0]).not.toBe(large[1]);
  });
});
