/**
 * The session contract (dashboard sign-in): a session is found by the hash of its secret only while
 * unexpired, and signing out, revoking its token or sweeping expired ones removes exactly those
 * sessions. Every Store implementation runs it (sessions.contract.test.ts for SQLite,
 * contract.postgres.test.ts for PostgreSQL).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Session } from '../../src/domain/sessions.js';
import type { Store, Tx } from '../../src/persistence/store.js';
import type { StoreFactory, StoreUnderTest } from './factory.js';

const HOUR = 3_600_000;

export function sessionContract(name: string, factory: StoreFactory): void {
  describe(`Store session contract: ${name}`, () => {
    let sut: StoreUnderTest;
    let store: Store;
    let now: number;
    const write = <T>(work: (tx: Tx) => Promise<T>) => store.transaction(work);
    const read = <T>(work: (tx: Tx) => Promise<T>) => store.read(work);
    const session = (id: string, overrides: Partial<Session> = {}): Session => ({
      id, secret_hash: `hash-of-${id}`, token_id: 'admin', credential_hash: 'hash-of-the-token', created_at: now, expires_at: now + HOUR, ...overrides,
    });

    beforeEach(async () => {
      sut = await factory();
      store = sut.store;
      now = sut.clock.now;
    });
    afterEach(async () => sut.dispose());

    it('finds a session by its secret hash, as stored, until the instant it expires', async () => {
      const stored = session('ses_a');
      await write((tx) => tx.sessions.insert(stored));
      expect(await read((tx) => tx.sessions.live('hash-of-ses_a', now))).toEqual(stored);
      expect(await read((tx) => tx.sessions.live('hash-of-ses_a', now + HOUR - 1))).toEqual(stored);
      expect(await read((tx) => tx.sessions.live('hash-of-ses_a', now + HOUR))).toBeUndefined();
      expect(await read((tx) => tx.sessions.live('hash-of-nothing', now))).toBeUndefined();
    });

    it('refuses a second session with the same secret hash', async () => {
      await write((tx) => tx.sessions.insert(session('ses_a')));
      await expect(write((tx) => tx.sessions.insert(session('ses_b', { secret_hash: 'hash-of-ses_a' })))).rejects.toThrow();
      expect(await sut.inspect.count('sessions')).toBe(1);
    });

    it('signing out removes that session only', async () => {
      await write(async (tx) => {
        await tx.sessions.insert(session('ses_a'));
        await tx.sessions.insert(session('ses_b'));
      });
      await write((tx) => tx.sessions.remove('ses_a'));
      expect(await read((tx) => tx.sessions.live('hash-of-ses_a', now))).toBeUndefined();
      expect(await read((tx) => tx.sessions.live('hash-of-ses_b', now))).toBeDefined();
    });

    it('revoking a token removes every session exchanged for it, and no other', async () => {
      await write(async (tx) => {
        await tx.sessions.insert(session('ses_a', { token_id: 'tok_1' }));
        await tx.sessions.insert(session('ses_b', { token_id: 'tok_1' }));
        await tx.sessions.insert(session('ses_c', { token_id: 'tok_2' }));
      });
      expect(await write((tx) => tx.sessions.removeForToken('tok_1'))).toBe(2);
      expect((await sut.inspect.rows<{ id: string }>('sessions', {}, { columns: ['id'] })).map((row) => row.id)).toEqual(['ses_c']);
    });

    it('sweeping removes the sessions expired at that instant, and keeps the live ones', async () => {
      await write(async (tx) => {
        await tx.sessions.insert(session('ses_old', { expires_at: now - 1 }));
        await tx.sessions.insert(session('ses_edge', { expires_at: now }));
        await tx.sessions.insert(session('ses_live', { expires_at: now + 1 }));
      });
      expect(await write((tx) => tx.sessions.removeExpired(now))).toBe(2);
      expect((await sut.inspect.rows<{ id: string }>('sessions', {}, { columns: ['id'] })).map((row) => row.id)).toEqual(['ses_live']);
    });
  });
}
