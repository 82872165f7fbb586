/**
 * Open inbox items are never crowded out (API.md, "Trust boundaries"): GET /api/office/inbox takes
 * `status=open|resolved`, and however many resolved items there are, every open one is listed.
 * Real server on a SQLite file; the many resolved items are written through the store.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { InboxItem } from '../../src/domain/types.js';
import { apiClient } from '../helpers/client.js';
import { startHarness, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { get, createWorkspace } = apiClient(() => h);

const RESOLVED = 600;

function item(workspaceId: string, id: string, status: InboxItem['status'], at: number): InboxItem {
  return { id, workspace_id: workspaceId, kind: 'agent.error', title: id, body: '', agent_id: null, task_id: null, ref_id: null, status, created_at: at };
}

describe('the inbox lists open items first of all', () => {
  it('?status=open lists every open item however many newer resolved ones there are, ?status=resolved only resolved ones, and no filter both with every open item', async () => {
    h = await startHarness();
    const ws = await createWorkspace();
    const other = await createWorkspace('Elsewhere');
    const t0 = Date.now() - 86_400_000;
    await h.scheduler.store.transaction(async (tx) => {
      // Two old open items, then many newer resolved ones, then one new open item; and one of another workspace.
      await tx.inbox.insert(item(ws, 'inb_old_open_1', 'open', t0));
      await tx.inbox.insert(item(ws, 'inb_old_open_2', 'open', t0 + 1));
      for (let i = 0; i < RESOLVED; i++) await tx.inbox.insert(item(ws, `inb_resolved_${String(i).padStart(4, '0')}`, 'resolved', t0 + 10 + i));
      await tx.inbox.insert(item(ws, 'inb_new_open', 'open', t0 + 10_000));
      await tx.inbox.insert(item(other, 'inb_elsewhere', 'open', t0 + 5));
    });

    const open = await get(`/api/office/inbox?workspace_id=${ws}&status=open`);
    expect(open.map((i: any) => i.id)).toEqual(['inb_new_open', 'inb_old_open_2', 'inb_old_open_1']);

    const resolved = await get(`/api/office/inbox?workspace_id=${ws}&status=resolved`);
    expect(resolved.every((i: any) => i.status === 'resolved')).toBe(true);
    expect(resolved[0].id).toBe(`inb_resolved_${String(RESOLVED - 1).padStart(4, '0')}`);

    const both = (await get(`/api/office/inbox?workspace_id=${ws}`)).map((i: any) => i.id);
    expect(both).toEqual(expect.arrayContaining(['inb_new_open', 'inb_old_open_2', 'inb_old_open_1']));
    expect(both[0]).toBe('inb_new_open');
    expect(both.slice(-2)).toEqual(['inb_old_open_2', 'inb_old_open_1']);
    expect(both).not.toContain('inb_elsewhere');

    const bad = await h.api('GET', `/api/office/inbox?workspace_id=${ws}&status=dismissed`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('status');
  });
});
