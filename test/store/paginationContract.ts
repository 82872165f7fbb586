/**
 * The lists' keyset pagination (domain/pagination.ts), through the port alone: walking a list page by
 * page from each page's last position yields the whole list once, in its order, with rows sharing a
 * sort key and rows inserted during the walk. Run by pagination.contract.test.ts (SQLite) and
 * pagination.contract.postgres.test.ts (PostgreSQL).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { pageOf, rowsForPage, type ListName, type PagePosition } from '../../src/domain/pagination.js';
import { newId } from '../../src/services/ids.js';
import { storePerTest, type StoreFactory } from './factory.js';
import { agentRow, commentRow, taskRow, workspaceRow } from './rows.js';

const PAGE = 4;

/** Reads `list` page by page through `readPage` (rows after a position, at most a number of them); `between` runs between pages. */
async function walk<T extends { id: string | number }>(
  list: ListName, readPage: (limit: number, after: PagePosition | undefined) => Promise<T[]>, between: () => Promise<void> = async () => {},
): Promise<Array<string | number>> {
  const seen: Array<string | number> = [];
  let after: PagePosition | undefined;
  for (let pages = 0; ; pages++) {
    if (pages > 50) throw new Error(`the walk of ${list} did not end: a page repeats`);
    const page = pageOf(list, await readPage(rowsForPage(PAGE), after), PAGE);
    expect(page.items.length).toBeLessThanOrEqual(PAGE);
    seen.push(...page.items.map((row) => row.id));
    if (!page.next) return seen;
    await between();
    after = page.next;
  }
}

export function paginationContract(name: string, factory: StoreFactory): void {
  describe(`Store pagination contract: ${name}`, () => {
    let now: number;
    const { write, query, clockNow } = storePerTest(factory);

    beforeEach(() => {
      now = clockNow();
    });

    it('tasks, newest first and by id within a millisecond: a walk sees each once while newer ones are inserted', async () => {
      const workspace = workspaceRow(now);
      // Three to a millisecond, inserted out of id order.
      const tasks = Array.from({ length: 15 }, (_, i) => taskRow(workspace.id, now - Math.floor(i / 3), { id: newId('tsk') }));
      await write(async (tx) => {
        await tx.workspaces.insert(workspace);
        for (const task of [...tasks].reverse()) await tx.tasks.insert(task);
      });
      const whole = (await query((tx) => tx.tasks.list({ workspace_id: workspace.id }))).map((t) => t.id);
      let inserted = 0;
      const seen = await walk('tasks', (limit, after) => query((tx) => tx.tasks.list({ workspace_id: workspace.id, limit, after })),
        () => write(async (tx) => { await tx.tasks.insert(taskRow(workspace.id, now + 1 + inserted++)); }));
      expect(seen).toEqual(whole);
      expect([...seen].sort()).toEqual(tasks.map((t) => t.id).sort());
      expect(inserted).toBeGreaterThan(2);
    });

    it('agents, oldest first: rows inserted during the walk come at its end, each once', async () => {
      const workspace = workspaceRow(now);
      const agents = Array.from({ length: 10 }, (_, i) => agentRow(workspace.id, now + Math.floor(i / 2)));
      await write(async (tx) => {
        await tx.workspaces.insert(workspace);
        for (const agent of [...agents].reverse()) await tx.agents.insert(agent);
      });
      const late: string[] = [];
      const seen = await walk('agents', (limit, after) => query((tx) => tx.agents.list({ workspace_id: workspace.id }, { limit, after })), async () => {
        if (late.length >= 3) return;
        const agent = agentRow(workspace.id, now + 100 + late.length);
        late.push(agent.id);
        await write(async (tx) => { await tx.agents.insert(agent); });
      });
      expect(seen).toEqual([...(await query((tx) => tx.agents.list({ workspace_id: workspace.id }))).map((a) => a.id)]);
      expect(seen.slice(-late.length)).toEqual(late);
      expect(new Set(seen).size).toBe(agents.length + late.length);
    });

    it('activity, by its id, and a task\'s comments, oldest first: a walk is the whole list in order', async () => {
      const workspace = workspaceRow(now);
      const task = taskRow(workspace.id, now);
      await write(async (tx) => {
        await tx.workspaces.insert(workspace);
        await tx.tasks.insert(task);
        for (let i = 0; i < 11; i++) await tx.activity.insert({ workspace_id: workspace.id, code: 'budget_changed', message: `change ${i}` }, now);
        for (let i = 0; i < 9; i++) await tx.comments.insert(commentRow(task, now + Math.floor(i / 3)));
      });
      const activity = (await query((tx) => tx.activity.list({ workspace_id: workspace.id }))).map((e) => e.id);
      expect(await walk('activity', (limit, after) => query((tx) => tx.activity.list({ workspace_id: workspace.id, limit, after })))).toEqual(activity);
      const comments = (await query((tx) => tx.comments.listByTask(task.id))).map((c) => c.id);
      expect(comments).toHaveLength(9);
      expect(await walk('comments', (limit, after) => query((tx) => tx.comments.listByTask(task.id, 0, { limit, after })))).toEqual(comments);
    });
  });
}
