/**
 * The organisation's removals, through the port alone: a workspace's deletion guarded against the
 * agents it holds (even one being created at the same moment), and a budget's change and deletion.
 * Run by organisation.contract.test.ts (SQLite) and organisation.contract.postgres.test.ts (PostgreSQL).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { storePerTest, type StoreFactory } from './factory.js';
import { agentRow, budgetRow, workspaceRow } from './rows.js';

/** Creations and deletions started together, each in its own transaction. */
const RACERS = 8;

export function organisationContract(name: string, factory: StoreFactory): void {
  describe(`Store organisation contract: ${name}`, () => {
    let now: number;
    const { write, read, clockNow } = storePerTest(factory);

    beforeEach(() => {
      now = clockNow();
    });

    it('deletes a workspace only while it holds no live agent, and lists only the live ones', async () => {
      const workspace = workspaceRow(now);
      const agent = agentRow(workspace.id, now);
      await write(async (tx) => {
        await tx.workspaces.insert(workspace);
        expect(await tx.agents.insert(agent)).toBe(true);
      });
      expect(await write((tx) => tx.workspaces.markDeleted(workspace.id, now))).toBe(false);
      await write((tx) => tx.agents.markDeleted(agent.id, now));
      expect(await write((tx) => tx.workspaces.markDeleted(workspace.id, now + 1))).toBe(true);
      expect(await write((tx) => tx.workspaces.markDeleted(workspace.id, now + 2))).toBe(false);
      expect(await read((tx) => tx.workspaces.list())).toEqual([]);
      expect(await read((tx) => tx.workspaces.get(workspace.id))).toMatchObject({ deleted_at: now + 1, updated_at: now + 1 });
      expect(await write((tx) => tx.workspaces.markDeleted('ws_missing', now))).toBe(false);
    });

    it('takes no agent into a deleted workspace', async () => {
      const workspace = workspaceRow(now, { deleted_at: now });
      await write((tx) => tx.workspaces.insert(workspace));
      expect(await write((tx) => tx.agents.insert(agentRow(workspace.id, now)))).toBe(false);
      expect(await read((tx) => tx.agents.list({ workspace_id: workspace.id }))).toEqual([]);
    });

    it('never leaves a live agent in a deleted workspace when agents are created while it is deleted', async () => {
      for (let round = 0; round < 5; round++) {
        const workspace = workspaceRow(now);
        await write((tx) => tx.workspaces.insert(workspace));
        const results = await Promise.all(Array.from({ length: RACERS }, (_, i) => write((tx) =>
          i % 2 === 0 ? tx.workspaces.markDeleted(workspace.id, now) : tx.agents.insert(agentRow(workspace.id, now)))));
        const deleted = (await read((tx) => tx.workspaces.get(workspace.id)))!.deleted_at !== null;
        const agents = await read((tx) => tx.agents.list({ workspace_id: workspace.id }));
        expect(agents.length).toBe(results.filter((ok, i) => i % 2 === 1 && ok).length);
        if (deleted) expect(agents).toEqual([]);
        else expect(agents.length).toBeGreaterThan(0);
      }
    });

    it('changes a budget\'s terms and reads them back; an unknown budget changes nothing', async () => {
      const workspace = workspaceRow(now);
      const budget = budgetRow(workspace.id, now);
      await write(async (tx) => {
        await tx.workspaces.insert(workspace);
        await tx.budgets.insert(budget);
      });
      const changed = await write((tx) => tx.budgets.edit(budget.id, { limit_usd: 42.5, period: 'daily', alert_threshold_pct: null }));
      expect(changed).toEqual({ ...budget, limit_usd: 42.5, period: 'daily', alert_threshold_pct: null });
      expect(await read((tx) => tx.budgets.get(budget.id))).toEqual(changed);
      expect(await write((tx) => tx.budgets.edit(budget.id, {}))).toEqual(changed);
      expect(await write((tx) => tx.budgets.edit('bdg_missing', { limit_usd: 1 }))).toBeUndefined();
    });

    it('deletes a budget with the alerts it sent; its costs stay in the ledger', async () => {
      const workspace = workspaceRow(now);
      const agent = agentRow(workspace.id, now);
      const budget = budgetRow(workspace.id, now);
      await write(async (tx) => {
        await tx.workspaces.insert(workspace);
        await tx.agents.insert(agent);
        await tx.budgets.insert(budget);
        await tx.budgets.recordCost({ workspace_id: workspace.id, project_id: null, agent_id: agent.id, run_id: 'run_1', cost_usd: 9, created_at: now });
        expect(await tx.budgets.markAlertSent(budget.id, '2026-01', 80, now)).toBe(true);
      });
      expect(await write((tx) => tx.budgets.delete(budget.id))).toBe(true);
      expect(await read((tx) => tx.budgets.get(budget.id))).toBeUndefined();
      expect(await write((tx) => tx.budgets.delete(budget.id))).toBe(false);
      expect(await read((tx) => tx.budgets.spend('workspace', workspace.id, now))).toBe(9);
      // The alert's record went with it: a budget made again may alert afresh.
      await write((tx) => tx.budgets.insert(budget));
      expect(await write((tx) => tx.budgets.markAlertSent(budget.id, '2026-01', 80, now))).toBe(true);
    });
  });
}
