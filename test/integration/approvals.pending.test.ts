/**
 * One approval at a time (API.md, "Trust boundaries"): a task has at most one pending approval,
 * held by the database (migration 0025's partial unique index), however many moves to DONE arrive
 * at once. Real server on a SQLite file; the PostgreSQL races are in approvals.pending.postgres.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/persistence/sqlite/database.js';
import { loadSqliteMigrations, migrate } from '../../src/persistence/sqlite/migrate.js';
import { apiClient } from '../helpers/client.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { DUPLICATE_PENDING_APPROVALS } from '../helpers/approvalDuplicates.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { call, get, post, createWorkspace, createAgent, settled } = apiClient(() => h);

describe('one pending approval per task', () => {
  it('concurrent moves to DONE of a requires_approval task leave one pending approval and one inbox item, and asking for another is a 409 that creates nothing', async () => {
    h = await startHarness();
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { name: 'Writer' });
    await call('PATCH', `/api/office/agents/${agent}`, { status: 'paused' }, 200);
    const task = await post('/api/office/tasks', { workspace_id: ws, title: 'Publish the report', assignee_agent_instance_id: agent, requires_approval: true });

    const moves = await Promise.all(Array.from({ length: 6 }, () => h!.api('POST', `/api/office/tasks/${task.id}/move`, { state: 'DONE' })));
    expect(moves.map((m) => [m.status, m.body.state])).toEqual(Array(6).fill([200, 'IN_REVIEW']));
    await settled();
    const approvals = await h.inspect.rows<{ id: string; status: string }>('approvals', { task_id: task.id });
    expect(approvals.map((a) => a.status)).toEqual(['pending']);
    const items = (await get(`/api/office/inbox?workspace_id=${ws}`)).filter((i: any) => i.task_id === task.id);
    expect(items.map((i: any) => [i.kind, i.ref_id, i.status])).toEqual([['approval', approvals[0]!.id, 'open']]);

    const second = await h.api('POST', '/api/office/approvals', { task_id: task.id, requested_by_agent_id: agent, title: 'Approve it again?' });
    expect(second.status).toBe(409);
    expect(second.body.error.message).toContain(approvals[0]!.id);
    expect(await h.inspect.count('approvals', { task_id: task.id })).toBe(1);
    expect((await get(`/api/office/inbox?workspace_id=${ws}`)).filter((i: any) => i.task_id === task.id)).toHaveLength(1);

    // Once decided, the task may ask again.
    await call('POST', `/api/office/approvals/${approvals[0]!.id}/resolve`, { status: 'rejected', decision_note: 'not yet' }, 200);
    expect((await post('/api/office/approvals', { task_id: task.id, requested_by_agent_id: agent, title: 'Now?' })).status).toBe('pending');
  });

  it('migration 0025 resolves the duplicate pending approvals already stored, keeping the oldest of each task, and closes their inbox items', () => {
    const dir = mkdtempSync(join(tmpdir(), 'office-approvals-'));
    const db = openDatabase(join(dir, 'office.db'), { synchronous: 'NORMAL' });
    try {
      migrate(db, loadSqliteMigrations().filter((m) => m.version < 25));
      db.exec(DUPLICATE_PENDING_APPROVALS);
      db.exec("INSERT INTO approvals (id, workspace_id, task_id, requested_by_agent_id, title, status, created_at) VALUES ('apr_old', 'ws_1', 'tsk_1', 'agt_a', 'Approve: One', 'approved', 1)");
      expect(migrate(db)).toContain('0025_one_pending_approval_per_task.sql');

      const approvals = db.prepare('SELECT id, status, decision_note FROM approvals ORDER BY id').all() as { id: string; status: string; decision_note: string | null }[];
      expect(approvals.map((a) => [a.id, a.status])).toEqual([
        ['apr_2', 'pending'], ['apr_a', 'rejected'], ['apr_b', 'rejected'], ['apr_c', 'pending'], ['apr_loose1', 'pending'], ['apr_loose2', 'pending'], ['apr_old', 'approved'],
      ]);
      expect(approvals.find((a) => a.id === 'apr_a')!.decision_note).toContain('duplicate of approval apr_c');
      expect(db.prepare('SELECT id, status FROM inbox_items ORDER BY id').all()).toEqual([
        { id: 'inb_2', status: 'open' }, { id: 'inb_a', status: 'resolved' }, { id: 'inb_b', status: 'resolved' }, { id: 'inb_c', status: 'open' },
      ]);
      expect(() => db.exec("INSERT INTO approvals (id, workspace_id, task_id, requested_by_agent_id, title, status, created_at) VALUES ('apr_x', 'ws_1', 'tsk_2', 'agt_a', 'X', 'pending', 10)"))
        .toThrow(/UNIQUE/);
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
