/**
 * office-scheduler/client, imported by its package name as a user does, against the real server:
 * a workspace, an agent (a real child process), a task assigned to it, the run that assignment
 * wakes, its transcript, a comment and a move, all through the typed client, with the types
 * checked by tsc (expectTypeOf) and the values here.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  createOfficeClient, OfficeApiError, OfficeUnreachableError, unwrap, type OfficeClient, type Schemas,
} from 'office-scheduler/client';
import { fixtureAgent, startHarness, type Harness } from '../helpers/harness.js';
import { freePort } from '../helpers/ports.js';

const TOKEN = 'client-test-token';

let h: Harness;
let office: OfficeClient;

beforeAll(async () => {
  h = await startHarness({ OFFICE_API_TOKEN: TOKEN });
  office = createOfficeClient({ baseUrl: `${h.url}/`, token: TOKEN });
});

afterAll(async () => {
  await h?.stop();
});

describe('the typed client', () => {
  it('runs the workspace → agent → task → run scenario', async () => {
    const workspace = await unwrap(office.POST('/api/office/workspaces', { body: { name: 'Typed', timezone: 'Europe/Warsaw' } }));
    expectTypeOf(workspace).toEqualTypeOf<Schemas['Workspace']>();
    const agent = await unwrap(office.POST('/api/office/agents', {
      body: { workspace_id: workspace.id, name: 'Typed worker', role: 'worker', executor: fixtureAgent('succeed.mjs'), cooldown_sec: 0 },
    }));
    expectTypeOf(agent).toEqualTypeOf<Schemas['Agent']>();
    const task = await unwrap(office.POST('/api/office/tasks', {
      body: { workspace_id: workspace.id, title: 'Write the client', assignee_agent_instance_id: agent.id },
    }));
    expectTypeOf(task.state).toEqualTypeOf<Schemas['Task']['state']>();

    // The assignment wakes the agent: its run, found by the task, ends succeeded.
    const run = await h.waitFor(async () => {
      const runs = await unwrap(office.GET('/api/office/runs', { params: { query: { task_id: task.id } } }));
      return runs.find((r) => r.status === 'succeeded' || r.status === 'failed');
    }, 'the run of the assigned task');
    expectTypeOf(run).toEqualTypeOf<Schemas['Run']>();
    expect(run).toMatchObject({ status: 'succeeded', agent_id: agent.id, task_id: task.id, workspace_id: workspace.id });

    const read = await unwrap(office.GET('/api/office/runs/{id}', { params: { path: { id: run.id } } }));
    expect(read.result_json).toMatchObject({ summary: 'handled task_assigned' });
    const transcript = await unwrap(office.GET('/api/office/runs/{id}/transcript', { params: { path: { id: run.id } } }));
    expect(transcript.events.map((e) => e.text).join('\n')).toContain(`succeed fixture handling run ${run.id}`);
    const wakeup = await unwrap(office.GET('/api/office/wakeups/{id}', { params: { path: { id: run.wakeup_id } } }));
    expect(wakeup).toMatchObject({ source: 'task_assigned', status: 'finished', run_id: run.id });

    const comment = await unwrap(office.POST('/api/office/tasks/{id}/comments', { params: { path: { id: task.id } }, body: { body: 'Looks good' } }));
    expect(comment).toMatchObject({ task_id: task.id, author_type: 'user', body: 'Looks good' });
    const moved = await unwrap(office.POST('/api/office/tasks/{id}/move', { params: { path: { id: task.id } }, body: { state: 'DONE' } }));
    expect(moved.state).toBe('DONE');

    const listed = await unwrap(office.GET('/api/office/agents', { params: { query: { workspace_id: workspace.id } } }));
    expect(listed.map((a) => a.id)).toEqual([agent.id]);
  });

  it('turns an error answer into an OfficeApiError with the envelope\'s code, message and details', async () => {
    const missing = await unwrap(office.GET('/api/office/runs/{id}', { params: { path: { id: 'run_missing' } } })).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(OfficeApiError);
    expect(missing).toMatchObject({ status: 404, code: 'not_found', message: expect.stringContaining('run_missing') });

    // A body the types forbid still reaches the server (a cast, as from untyped JavaScript) and is refused field by field.
    const invalid = await unwrap(office.POST('/api/office/workspaces', { body: { name: '' } as never })).catch((e: unknown) => e) as OfficeApiError;
    expect(invalid).toMatchObject({ status: 400, code: 'validation_error' });
    expect(invalid.details.length).toBeGreaterThan(0);
    expect(invalid.details[0]).toHaveProperty('path');
  });

  it('sends the token: without it the server answers 401', async () => {
    const anonymous = createOfficeClient({ baseUrl: h.url });
    const refused = await unwrap(anonymous.GET('/api/office/workspaces')).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 401, code: 'unauthorized' });
  });

  it('says when nothing answers at the base URL', async () => {
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    const failed = await unwrap(createOfficeClient({ baseUrl: nowhere }).GET('/api/office/workspaces')).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(OfficeUnreachableError);
    expect(failed).toMatchObject({ baseUrl: nowhere, reason: 'ECONNREFUSED' });
  });
});
