/**
 * The live stream behind the dashboard (GET /api/office/stream): server-sent events for wakeup,
 * run and actor changes; the API token may come as `?token=` there (and only there), because
 * EventSource cannot send headers; and an open stream never holds up shutdown.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureAgent, startHarness, type Harness } from '../helpers/harness.js';
import { openStream, readStream } from '../helpers/stream.js';

const TOKEN = 'stream-token';
let h: Harness | undefined;

afterEach(async () => {
  await h?.stop();
  h = undefined;
});

describe('GET /api/office/stream', () => {
  it('sends hello, then wakeup, actor and run events as an agent works', async () => {
    h = await startHarness();
    const ws = await h.api('POST', '/api/office/workspaces', { name: 'Acme' });
    const agent = await h.api('POST', '/api/office/agents', { workspace_id: ws.body.id, name: 'Worker', role: 'worker', cooldown_sec: 0, executor: fixtureAgent('succeed.mjs') });
    const stream = await openStream(`${h.url}/api/office/stream`);
    await h.api('POST', `/api/office/agents/${agent.body.id}/wake`, { reason: 'stream test' });
    const { status, contentType, text } = await stream.readUntil(/event: run\n/);
    expect(status).toBe(200);
    expect(contentType).toBe('text/event-stream');
    expect(text).toMatch(/^retry: \d+\nevent: hello\ndata: \{"agents":/);
    const kinds = [...text.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
    expect(kinds.indexOf('wakeup')).toBeGreaterThan(0);
    expect(kinds).toContain('actor');
    expect(kinds).toContain('run');
    expect(text).toContain(`"agent_id":"${agent.body.id}"`);
  });

  it('sends an actor event only when the actor\'s view changed: changing what the actor does not show sends none', async () => {
    h = await startHarness();
    const ws = await h.api('POST', '/api/office/workspaces', { name: 'Acme' });
    const agent = await h.api('POST', '/api/office/agents', { workspace_id: ws.body.id, name: 'Worker', role: 'worker', cooldown_sec: 0, executor: fixtureAgent('succeed.mjs') });
    const stream = await openStream(`${h.url}/api/office/stream`);
    // Each change reaches the actor as new settings, a transition whose view is the one it had.
    for (const name of ['Worker 2', 'Worker 3']) expect((await h.api('PATCH', `/api/office/agents/${agent.body.id}`, { name })).status).toBe(200);
    await h.api('POST', `/api/office/agents/${agent.body.id}/wake`, { reason: 'stream test' });
    const { text } = await stream.readUntil(/event: run\n/);
    // Before the wake's events, no actor event repeats the view that the hello holds.
    const idle = /"agents":\{"[^"]+":(\{[^}]*\})/.exec(text)![1]!;
    const working = text.indexOf('"view":{"state":"active.working"');
    expect(working, text).toBeGreaterThan(0);
    expect(text.slice(0, working).split(`"view":${idle}`), text).toHaveLength(1);
  });

  it('sends a routine event when a routine is paused, so open dashboards re-read it', async () => {
    h = await startHarness();
    const ws = await h.api('POST', '/api/office/workspaces', { name: 'Acme' });
    const agent = await h.api('POST', '/api/office/agents', { workspace_id: ws.body.id, name: 'Worker', role: 'worker', executor: fixtureAgent('succeed.mjs') });
    const routine = await h.api('POST', '/api/office/routines', {
      workspace_id: ws.body.id, name: 'Nightly', assignee_agent_instance_id: agent.body.id, triggers: [{ kind: 'manual' }],
    });
    const stream = await openStream(`${h.url}/api/office/stream`);
    expect((await h.api('PATCH', `/api/office/routines/${routine.body.id}`, { status: 'paused' })).status).toBe(200);
    const { text } = await stream.readUntil(/event: routine\n/);
    expect(text).toContain(`event: routine\ndata: {"kind":"routine","routine_id":"${routine.body.id}"}`);
  });

  it('sends a task event when a task is created, moved or commented, so the board and the inbox re-read it', async () => {
    h = await startHarness();
    const ws = await h.api('POST', '/api/office/workspaces', { name: 'Acme' });
    const stream = await openStream(`${h.url}/api/office/stream`);
    const task = await h.api('POST', '/api/office/tasks', { workspace_id: ws.body.id, title: 'Unassigned work' });
    expect((await h.api('POST', `/api/office/tasks/${task.body.id}/move`, { state: 'IN_PROGRESS' })).status).toBe(200);
    expect((await h.api('POST', `/api/office/tasks/${task.body.id}/comments`, { body: 'note', author_type: 'user', author_id: 'pm' })).status).toBe(201);
    const { text } = await stream.readUntil(/event: task\n(.|\n)*event: task\n(.|\n)*event: task\n/);
    expect(text.split(`event: task\ndata: {"kind":"task","task_id":"${task.body.id}"}`)).toHaveLength(4);
  });

  it('takes the API token as ?token= (EventSource cannot send headers), and only on the stream', async () => {
    h = await startHarness({ OFFICE_API_TOKEN: TOKEN });
    expect((await readStream(`${h.url}/api/office/stream`, /hello/)).status).toBe(401);
    expect((await readStream(`${h.url}/api/office/stream?token=wrong`, /hello/)).status).toBe(401);
    expect((await readStream(`${h.url}/api/office/stream?token=${TOKEN}`, /event: hello/)).status).toBe(200);
    expect((await readStream(`${h.url}/api/office/stream`, /event: hello/, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    expect((await fetch(`${h.url}/api/office/workspaces?token=${TOKEN}`)).status).toBe(401);
  });

  it('does not hold up shutdown while a dashboard is connected', async () => {
    h = await startHarness();
    const controller = new AbortController();
    const response = await fetch(`${h.url}/api/office/stream`, { signal: controller.signal });
    expect(response.status).toBe(200);
    const started = Date.now();
    await h.stop();
    h = undefined;
    expect(Date.now() - started).toBeLessThan(5_000);
    controller.abort();
  });
});
