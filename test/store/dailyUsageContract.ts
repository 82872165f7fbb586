/**
 * The daily caps contract: an agent's runs and spend of a UTC day are counted in its usage row by
 * the schema, whoever writes the runs and the ledger, and the dispatch's decision on them is one
 * statement that holds the row, so that dispatches at once never both pass a cap. Every Store
 * implementation runs it (dailyUsage.contract.test.ts, dailyUsage.contract.postgres.test.ts).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { startOfUtcDay } from '../../src/domain/dailyCaps.js';
import type { Agent, Run } from '../../src/domain/types.js';
import type { Tx } from '../../src/persistence/store.js';
import { storePerTest, type StoreFactory } from './factory.js';
import { agentRow, runRow, seedAgent, wakeupRow } from './rows.js';

const DAY = 86_400_000;
const RACERS = 6;

const caps = (daily_run_cap: number | null, daily_cost_cap_usd: number | null = null) => ({ daily_run_cap, daily_cost_cap_usd });

export function dailyUsageContract(name: string, factory: StoreFactory): void {
  describe(`Store daily caps contract: ${name}`, () => {
    const { write, read, clockNow } = storePerTest(factory);
    let now: number;
    let today: number;
    beforeEach(() => {
      now = clockNow();
      today = startOfUtcDay(now);
    });

    /** A run of `agent` (on a wakeup of its own) as the claim inserts it, created at `at`. */
    async function insertRun(tx: Tx, agent: Agent, at: number, patch: Partial<Run> = {}): Promise<Run> {
      const wakeup = wakeupRow(agent, at, { status: 'claimed', claimed_at: at });
      const run = runRow(wakeup, at, patch);
      await tx.wakeups.insert(wakeup);
      await tx.runs.insert(run, null);
      return run;
    }

    /** The hold's and the plain read's answers, which must agree. */
    async function answers(agent: Agent, limits: ReturnType<typeof caps>, day = today) {
      const held = await write((tx) => tx.runs.holdDailyCaps(agent.id, day, limits));
      expect(await read((tx) => tx.runs.dailyCapReached(agent.id, day, limits))).toBe(held);
      return held;
    }

    it('a run counts against its agent\'s day from its insert, queued or running; a run failed with no session, another agent\'s and another day\'s do not', async () => {
      const { agent, workspace } = await write((tx) => seedAgent(tx, now));
      const other = agentRow(workspace.id, now);
      await write(async (tx) => {
        await tx.agents.insert(other);
        await insertRun(tx, agent, now);
        await insertRun(tx, agent, now + 1, { status: 'running', started_at: now + 1 });
        await insertRun(tx, agent, now + 2, { status: 'failed', error: 'no_executor', finished_at: now + 2 });
        await insertRun(tx, other, now);
        await insertRun(tx, agent, now - DAY, { status: 'succeeded', started_at: now - DAY, finished_at: now - DAY + 1 });
      });
      expect(await answers(agent, caps(2))).toBe('daily_run_cap');
      expect(await answers(agent, caps(3))).toBeNull();
      expect(await answers(other, caps(1))).toBe('daily_run_cap');
      expect(await answers(agent, caps(1), today - DAY)).toBe('daily_run_cap');
      expect(await answers(agent, caps(2), today - DAY)).toBeNull();
      expect(await answers(agent, caps(1), today + DAY)).toBeNull();
    });

    it('a queued run that ends before its session starts gives its count back; a run whose session started keeps it', async () => {
      const { agent } = await write((tx) => seedAgent(tx, now));
      const [never, started] = await write(async (tx) => [await insertRun(tx, agent, now), await insertRun(tx, agent, now)]);
      expect(await answers(agent, caps(2))).toBe('daily_run_cap');
      await write(async (tx) => {
        expect(await tx.runs.markStarted(started!.id, now + 1)).toBe(true);
        expect(await tx.runs.abandon(never!.id, 'queued', 'never launched', now + 2)).toBe(true);
        expect(await tx.runs.abandon(started!.id, 'running', 'stopped', now + 3)).toBe(true);
      });
      expect(await answers(agent, caps(2))).toBeNull();
      expect(await answers(agent, caps(1))).toBe('daily_run_cap');
    });

    it('the day\'s spend in the ledger counts toward the cost cap, once per run; the run cap is named first when both are reached', async () => {
      const { agent } = await write((tx) => seedAgent(tx, now));
      const run = await write((tx) => insertRun(tx, agent, now, { status: 'running', started_at: now }));
      const cost = { workspace_id: agent.workspace_id, project_id: null, agent_id: agent.id, run_id: run.id, cost_usd: 1.5, created_at: now };
      await write(async (tx) => {
        await tx.budgets.recordCost(cost);
        await tx.budgets.recordCost({ ...cost, cost_usd: 9 });
        await tx.budgets.recordCost({ ...cost, run_id: 'run_yesterday', cost_usd: 5, created_at: now - DAY });
      });
      expect(await answers(agent, caps(null, 1.5))).toBe('daily_cost_cap');
      expect(await answers(agent, caps(null, 2))).toBeNull();
      expect(await answers(agent, caps(5, 2))).toBeNull();
      expect(await answers(agent, caps(1, 1))).toBe('daily_run_cap');
      expect(await answers(agent, caps(null, 5), today - DAY)).toBe('daily_cost_cap');
    });

    it('a cap of 0 is reached on a day with nothing counted', async () => {
      const { agent } = await write((tx) => seedAgent(tx, now));
      expect(await answers(agent, caps(0))).toBe('daily_run_cap');
      expect(await answers(agent, caps(null, 0))).toBe('daily_cost_cap');
      expect(await answers(agent, caps(null))).toBeNull();
    });

    it('dispatches at once one below the cap: exactly one counts its run, every other finds the cap reached', async () => {
      const { agent } = await write((tx) => seedAgent(tx, now));
      await write((tx) => insertRun(tx, agent, now, { status: 'succeeded', started_at: now, finished_at: now + 1 }));
      // Each decides, and inserts its run only when no cap was reached, in one transaction.
      const decided = await Promise.all(Array.from({ length: RACERS }, () => write(async (tx) => {
        const cap = await tx.runs.holdDailyCaps(agent.id, today, caps(2));
        if (cap === null) await insertRun(tx, agent, now + 1);
        return cap;
      })));
      expect(decided.filter((cap) => cap === null)).toHaveLength(1);
      expect(decided.filter((cap) => cap === 'daily_run_cap')).toHaveLength(RACERS - 1);
      expect(await read((tx) => tx.runs.list({ agent_id: agent.id }))).toHaveLength(2);
    });
  });
}
