/**
 * The API token contract (API.md, "Governance"): what every Store implementation must do with named
 * tokens, through the port alone. Run by tokens.contract.test.ts (SQLite) and
 * tokens.contract.postgres.test.ts (PostgreSQL).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { hashApiToken, newApiTokenSecret } from '../../src/domain/apiTokens.js';
import type { ApiToken } from '../../src/domain/governance.js';
import { newId } from '../../src/services/ids.js';
import { storePerTest, type StoreFactory } from './factory.js';
import { routineRow, seedAgent, wakeupRow } from './rows.js';

const RACERS = 8;

function tokenRow(at: number, patch: Partial<ApiToken> = {}): ApiToken {
  return { id: newId('tok'), name: 'ci', role: 'member', token_hash: hashApiToken(newApiTokenSecret()), created_at: at, revoked_at: null, ...patch };
}

export function tokenContract(name: string, factory: StoreFactory): void {
  describe(`Store token contract: ${name}`, () => {
    let now: number;
    const { write, read, clockNow } = storePerTest(factory);

    beforeEach(() => {
      now = clockNow();
    });

    it('a token is found by the hash of its secret, and listed oldest first with revoked ones', async () => {
      const first = tokenRow(now, { name: 'first', role: 'admin' });
      const second = tokenRow(now + 1, { name: 'second' });
      await write(async (tx) => {
        await tx.tokens.insert(second);
        await tx.tokens.insert(first);
      });
      await write((tx) => tx.tokens.revoke(second.id, now + 5));
      expect(await read((tx) => tx.tokens.byHash(first.token_hash))).toEqual(first);
      expect(await read((tx) => tx.tokens.byHash(hashApiToken('ost_unknown')))).toBeUndefined();
      expect(await read((tx) => tx.tokens.get(second.id))).toEqual({ ...second, revoked_at: now + 5 });
      expect((await read((tx) => tx.tokens.list())).map((t) => t.name)).toEqual(['first', 'second']);
    });

    it('two tokens cannot share a hash', async () => {
      const token = tokenRow(now);
      await write((tx) => tx.tokens.insert(token));
      await expect(write((tx) => tx.tokens.insert(tokenRow(now, { token_hash: token.token_hash })))).rejects.toThrow();
      expect(await read((tx) => tx.tokens.list())).toHaveLength(1);
    });

    it('revoking races: exactly one revoker wins, the first revocation time stays, and an unknown id revokes nothing', async () => {
      const token = tokenRow(now);
      await write((tx) => tx.tokens.insert(token));
      const results = await Promise.all(Array.from({ length: RACERS }, (_, i) => write((tx) => tx.tokens.revoke(token.id, now + 10 + i))));
      expect(results.filter(Boolean)).toHaveLength(1);
      const revokedAt = (await read((tx) => tx.tokens.get(token.id)))!.revoked_at!;
      expect(revokedAt).toBe(now + 10 + results.indexOf(true));
      expect(await write((tx) => tx.tokens.revoke(token.id, now + 100))).toBe(false);
      expect(await write((tx) => tx.tokens.revoke('tok_missing', now))).toBe(false);
    });

    it('pausing a token\'s routines pauses only its active ones, with the reason, and returns them as they are now', async () => {
      const { owned, pausedByPerson, archived, others } = await write(async (tx) => {
        const { agent } = await seedAgent(tx, now);
        const rows = {
          owned: routineRow(agent, now, { owner_id: 'tok_a' }),
          pausedByPerson: routineRow(agent, now, { owner_id: 'tok_a', status: 'paused', paused_reason: 'paused by a person' }),
          archived: routineRow(agent, now, { owner_id: 'tok_a', status: 'archived' }),
          others: routineRow(agent, now, { owner_id: 'tok_b' }),
        };
        for (const row of Object.values(rows)) await tx.routines.insert(row);
        return rows;
      });
      const paused = await write((tx) => tx.tokens.pauseRoutinesOwnedBy('tok_a', "owner's token was revoked", now + 7));
      expect(paused.map((r) => [r.id, r.status, r.paused_reason, r.updated_at])).toEqual([[owned.id, 'paused', "owner's token was revoked", now + 7]]);
      expect(paused[0]!.task_template).toBeNull();
      const after = await read(async (tx) => Promise.all([pausedByPerson, archived, others].map((r) => tx.routines.get(r.id))));
      expect(after.map((r) => [r!.status, r!.paused_reason])).toEqual([['paused', 'paused by a person'], ['archived', null], ['active', null]]);
      expect(await write((tx) => tx.tokens.pauseRoutinesOwnedBy('tok_a', 'again', now + 8))).toEqual([]);
    });

    it("cancelling a revoked owner's wakeups ends only its queued and retrying ones, with the reason, and returns them as they are now", async () => {
      const rows = await write(async (tx) => {
        const { agent } = await seedAgent(tx, now);
        const rows = {
          queued: wakeupRow(agent, now, { on_behalf_of: 'tok_a', unattended: true }),
          retrying: wakeupRow(agent, now, { on_behalf_of: 'tok_a', status: 'scheduled_retry', scheduled_retry_at: now + 60_000 }),
          claimed: wakeupRow(agent, now, { on_behalf_of: 'tok_a', status: 'claimed', claimed_at: now }),
          ended: wakeupRow(agent, now, { on_behalf_of: 'tok_a', status: 'finished', finished_at: now }),
          others: wakeupRow(agent, now, { on_behalf_of: 'tok_b' }),
          attended: wakeupRow(agent, now),
        };
        for (const row of Object.values(rows)) await tx.wakeups.insert(row);
        return rows;
      });
      const cancelled = await write((tx) => tx.wakeups.cancelOnBehalfOf('tok_a', 'owner_revoked', now + 9));
      expect(cancelled.map((w) => [w.id, w.status, w.cancel_reason, w.finished_at]).sort())
        .toEqual([[rows.queued.id, 'cancelled', 'owner_revoked', now + 9], [rows.retrying.id, 'cancelled', 'owner_revoked', now + 9]].sort());
      const after = await read(async (tx) => Promise.all([rows.claimed, rows.ended, rows.others, rows.attended].map((w) => tx.wakeups.get(w.id))));
      expect(after.map((w) => w!.status)).toEqual(['claimed', 'finished', 'queued', 'queued']);
      expect(await write((tx) => tx.wakeups.cancelOnBehalfOf('tok_a', 'owner_revoked', now + 10))).toEqual([]);
    });
  });
}
