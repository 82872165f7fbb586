/**
 * Plans of statements whose cost must not grow with the history or the queue, read with EXPLAIN
 * QUERY PLAN on SQLite, whose planner has no statistics and chooses by the indexes' shapes alone.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/harness.js';
import { profiledSchedulerPerTest } from '../helpers/statementProfile.js';

/** The plan of `text` in the database at `dbPath`, with every parameter NULL: the steps' details, in order. */
function planOf(dbPath: string, text: string): string[] {
  const params = Object.fromEntries([...text.matchAll(/@(\w+)/g)].map(([, name]) => [name, null]));
  const reader = new Database(dbPath, { readonly: true });
  try {
    return (reader.prepare(`EXPLAIN QUERY PLAN ${text}`).all(params) as { detail: string }[]).map((step) => step.detail);
  } finally {
    reader.close();
  }
}

describe('query plans', () => {
  const profiledScheduler = profiledSchedulerPerTest();

  it('the enqueue looks for the fold target of a request bound to its task among that task\'s queued wakeups, not the agent\'s queue', async () => {
    // Not started: no actor claims, so the tasks' wakeups stay queued.
    const { scheduler, dbPath, profile } = await profiledScheduler();
    const workspace = await scheduler.services.org.createWorkspace({ name: 'Acme' });
    const agent = await scheduler.services.org.createAgent({ workspace_id: workspace.id, name: 'Worker', role: 'worker' });
    for (let i = 0; i < 3; i++) await scheduler.services.tasks.createTask({ workspace_id: workspace.id, title: `t${i}`, assignee_agent_instance_id: agent.id });
    const enqueues = profile.statements().filter((s) => s.text.startsWith('WITH agent AS'));
    expect(enqueues.map((s) => s.count)).toEqual([3]);

    const plan = planOf(dbPath, enqueues[0]!.text);
    const seeksOfQueue = plan.filter((step) => /agent_wakeup_requests USING INDEX wakeups_by_agent_status \(agent_id=\? AND status=\? AND requested_at>\?\)/.test(step));
    expect(seeksOfQueue, plan.join('\n')).toEqual([]);
    expect(plan.some((step) => /SEARCH agent_wakeup_requests USING INDEX wakeups_by_task \(task_id=\?\)/.test(step)), plan.join('\n')).toBe(true);
  });

  it('a page of a workspace\'s wakeups, newest first, is a seek in that order, not a sort of the workspace\'s history', async () => {
    const { scheduler, dbPath, profile } = await profiledScheduler();
    const workspace = await scheduler.services.org.createWorkspace({ name: 'Acme' });
    profile.reset();
    const page = await scheduler.app.inject({ method: 'GET', url: `/api/office/wakeups?workspace_id=${workspace.id}&limit=50` });
    expect(page.statusCode).toBe(200);
    const [list] = profile.statements().filter((s) => s.text.startsWith('SELECT * FROM agent_wakeup_requests'));
    expect(list, profile.statements().map((s) => s.text).join('\n')).toBeDefined();

    const plan = planOf(dbPath, list!.text);
    expect(plan.filter((step) => step.startsWith('USE TEMP B-TREE FOR ORDER BY')), plan.join('\n')).toEqual([]);
    expect(plan.some((step) => /SEARCH agent_wakeup_requests USING INDEX wakeups_by_workspace \(workspace_id=\?\)/.test(step)), plan.join('\n')).toBe(true);
  });

  it('the claim sums each budget\'s spend over its scope\'s index of the cost ledger, not over the whole ledger', async () => {
    const { scheduler, dbPath, profile } = await profiledScheduler(new Map([['noop', async () => ({})]]));
    await scheduler.start({ listen: false });
    const workspace = await scheduler.services.org.createWorkspace({ name: 'Acme' });
    const agent = await scheduler.services.org.createAgent({
      workspace_id: workspace.id, name: 'Worker', role: 'worker', executor: { kind: 'function', name: 'noop' },
    });
    await scheduler.services.tasks.createTask({ workspace_id: workspace.id, title: 'one', assignee_agent_instance_id: agent.id });
    await waitFor(async () => (await scheduler.store.transaction((tx) => tx.runs.list({ agent_id: agent.id }))).length === 1, 'the run');
    const [claim] = profile.statements().filter((s) => s.text.startsWith("UPDATE agent_wakeup_requests SET status = 'claimed'") && s.text.includes('cost_ledger'));
    expect(claim, profile.statements().map((s) => s.text.slice(0, 80)).join('\n')).toBeDefined();

    const plan = planOf(dbPath, claim!.text);
    for (const index of ['cost_by_workspace', 'cost_by_project', 'cost_by_agent']) {
      expect(plan.some((step) => step.startsWith(`SEARCH l USING INDEX ${index} (`) && step.includes('created_at>?')), plan.join('\n')).toBe(true);
    }
  });

  it('the timeline reads a workspace\'s ended runs by when they ended, and its runs still going from the open runs, not from the workspace\'s history', async () => {
    const { scheduler, dbPath, profile } = await profiledScheduler();
    const workspace = await scheduler.services.org.createWorkspace({ name: 'Acme' });
    profile.reset();
    const timeline = await scheduler.app.inject({ method: 'GET', url: `/api/office/stats/timeline?workspace_id=${workspace.id}` });
    expect(timeline.statusCode, timeline.body).toBe(200);
    const [spans] = profile.statements().filter((s) => s.text.includes('finished_at IS NULL') && s.text.includes('FROM runs'));
    expect(spans, profile.statements().map((s) => s.text.slice(0, 80)).join('\n')).toBeDefined();

    const plan = planOf(dbPath, spans!.text);
    expect(plan.some((step) => step.startsWith('SEARCH runs USING INDEX runs_by_workspace_finished (workspace_id=? AND finished_at>?)')), plan.join('\n')).toBe(true);
    expect(plan.some((step) => step.startsWith('SEARCH runs USING INDEX runs_active (status=?)')), plan.join('\n')).toBe(true);
  });
});
