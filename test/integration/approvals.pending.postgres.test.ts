/**
 * One approval at a time across replicas (API.md, "Trust boundaries"): moves to DONE of a
 * requires_approval task arriving at once through two replicas on one PostgreSQL database leave the
 * task one pending approval and one inbox item; the database's partial unique index decides, not a
 * read before the insert. Also migration 0025's clean-up of duplicates stored before it.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createInspector } from '../../src/persistence/createStore.js';
import { loadPostgresMigrations, migratePostgres } from '../../src/persistence/postgres/migrate.js';
import { replicasPerTest } from '../helpers/replicas.js';
import { freshDatabase } from '../store/postgresFactory.js';
import { DUPLICATE_PENDING_APPROVALS } from '../helpers/approvalDuplicates.js';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const TASKS = 6;
const MOVES_PER_REPLICA = 3;

const cluster = replicasPerTest();

describe('one pending approval per task, on PostgreSQL', () => {
  it('concurrent moves to DONE through two replicas leave each requires_approval task one pending approval and one inbox item', async () => {
    const a = await cluster.start('replica-a', { at: T0 });
    const b = await cluster.start('replica-b', { at: T0 });
    const ws = (await a.api('POST', '/api/office/workspaces', { name: 'Acme' })).body.id;
    const agent = (await a.api('POST', '/api/office/agents', { workspace_id: ws, name: 'Writer', role: 'worker' })).body.id;
    expect((await a.api('PATCH', `/api/office/agents/${agent}`, { status: 'paused' })).status).toBe(200);
    const tasks: string[] = [];
    for (let i = 0; i < TASKS; i++) {
      tasks.push((await a.api('POST', '/api/office/tasks', { workspace_id: ws, title: `Report ${i}`, assignee_agent_instance_id: agent, requires_approval: true })).body.id);
    }

    const moves = await Promise.all(tasks.flatMap((id) => Array.from({ length: MOVES_PER_REPLICA }, () => [a, b]).flat()
      .map((replica) => replica.api('POST', `/api/office/tasks/${id}/move`, { state: 'DONE' }))));
    expect(moves.map((m) => m.status)).toEqual(Array(moves.length).fill(200));

    const inspect = createInspector({ dbPath: '', databaseUrl: cluster.databaseUrl });
    try {
      for (const id of tasks) {
        expect(await inspect.count('approvals', { task_id: id, status: 'pending' }), `pending approvals of ${id}`).toBe(1);
        expect(await inspect.count('approvals', { task_id: id }), `approvals of ${id}`).toBe(1);
        expect(await inspect.count('inbox_items', { task_id: id, kind: 'approval' }), `inbox items of ${id}`).toBe(1);
        expect((await b.api('GET', `/api/office/tasks/${id}`)).body.state).toBe('IN_REVIEW');
      }
    } finally {
      await inspect.close();
    }
  }, 60_000);

  it('migration 0025 resolves the duplicate pending approvals already stored, keeping the oldest of each task, and closes their inbox items', async () => {
    const database = await freshDatabase();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await migratePostgres(client, loadPostgresMigrations().filter((m) => m.version < 25));
      await client.query(DUPLICATE_PENDING_APPROVALS);
      expect(await migratePostgres(client)).toContain('0025_one_pending_approval_per_task.sql');

      const approvals = (await client.query('SELECT id, status, decision_note FROM approvals ORDER BY id')).rows;
      expect(approvals.map((r) => [r.id, r.status])).toEqual([
        ['apr_2', 'pending'], ['apr_a', 'rejected'], ['apr_b', 'rejected'], ['apr_c', 'pending'], ['apr_loose1', 'pending'], ['apr_loose2', 'pending'],
      ]);
      expect(approvals.find((r) => r.id === 'apr_b')!.decision_note).toContain('duplicate of approval apr_c');
      expect((await client.query('SELECT id, status FROM inbox_items ORDER BY id')).rows).toEqual([
        { id: 'inb_2', status: 'open' }, { id: 'inb_a', status: 'resolved' }, { id: 'inb_b', status: 'resolved' }, { id: 'inb_c', status: 'open' },
      ]);
      await expect(client.query("INSERT INTO approvals (id, workspace_id, task_id, requested_by_agent_id, title, status, created_at) VALUES ('apr_x', 'ws_1', 'tsk_2', 'agt_a', 'X', 'pending', 10)"))
        .rejects.toThrow(/approvals_one_pending_per_task/);
    } finally {
      await client.end();
      await database.drop();
    }
  });
});
