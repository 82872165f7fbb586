/**
 * Routine and trigger CRUD exactly as API.md describes it (Routines, Pinned details: Routines).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.stop());

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function routineBody(extra: Record<string, unknown> = {}) {
  const { workspaceId, agentId } = await seedAgent(h, { skip_idle_wakeups: false });
  return { workspaceId, agentId, body: { workspace_id: workspaceId, name: 'Nightly sweep', assignee_agent_instance_id: agentId, ...extra } };
}

describe('routines CRUD', () => {
  it('creates a routine with schedule, webhook and manual triggers: 201 with triggers; the webhook secret is shown once', async () => {
    const { body, agentId } = await routineBody({
      description: 'sweeps', concurrency_policy: 'skip_if_active', catch_up_policy: 'skip_missed', catch_up_max: 7,
      triggers: [
        { kind: 'schedule', cron_expression: '0 9 * * *', timezone: 'UTC' },
        { kind: 'webhook', signing_mode: 'hmac_sha256' },
        { kind: 'manual' },
      ],
    });
    const before = Date.now();
    const created = await h.api('POST', '/api/office/routines', body);
    expect(created.status).toBe(201);
    const routine = created.body;
    expect(routine).toMatchObject({
      id: expect.any(String), name: 'Nightly sweep', description: 'sweeps', status: 'active',
      assignee_agent_instance_id: agentId, concurrency_policy: 'skip_if_active', catch_up_policy: 'skip_missed', catch_up_max: 7,
      task_template: null, recent_runs: [],
    });
    expect(routine.triggers).toHaveLength(3);
    const [schedule, webhook, manual] = routine.triggers;

    expect(schedule).toMatchObject({ kind: 'schedule', cron_expression: '0 9 * * *', timezone: 'UTC', enabled: true, last_fired_at: null });
    const next = Date.parse(schedule.next_run_at);
    expect(new Date(next).toISOString()).toMatch(/T09:00:00\.000Z$/);
    expect(next).toBeGreaterThan(before);
    expect(next - before).toBeLessThanOrEqual(DAY);

    expect(webhook).toMatchObject({ kind: 'webhook', signing_mode: 'hmac_sha256', public_id: expect.any(String), next_run_at: null });
    expect(webhook.secret).toEqual(expect.any(String));
    expect(webhook.secret.length).toBeGreaterThanOrEqual(16);
    expect(webhook.url).toBe(`/api/routine-triggers/${webhook.public_id}/fire`);
    expect(manual).toMatchObject({ kind: 'manual', next_run_at: null });

    const detail = await h.api('GET', `/api/office/routines/${routine.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.triggers).toHaveLength(3);
    expect(detail.body.recent_runs).toEqual([]);
    const hook = detail.body.triggers.find((t: any) => t.kind === 'webhook');
    expect(hook.public_id).toBe(webhook.public_id);
    expect(hook).not.toHaveProperty('secret');
    expect(JSON.stringify(detail.body)).not.toContain(webhook.secret);
    const list = await h.api('GET', `/api/office/routines?workspace_id=${body.workspace_id}`);
    expect(list.status).toBe(200);
    expect(list.body.map((r: any) => r.id)).toEqual([routine.id]);
    expect(JSON.stringify(list.body)).not.toContain(webhook.secret);
  });

  it('PATCH updates fields and returns the detail; DELETE is 204 and archives the routine (API.md, "Deleting a routine")', async () => {
    const { body, agentId } = await routineBody({ triggers: [{ kind: 'schedule', cron_expression: '0 9 * * *' }] });
    const routine = (await h.api('POST', '/api/office/routines', body)).body;
    const patched = await h.api('PATCH', `/api/office/routines/${routine.id}`, {
      name: 'Renamed', description: 'new', status: 'paused', concurrency_policy: 'always_enqueue', catch_up_max: 3,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: routine.id, name: 'Renamed', description: 'new', status: 'paused', concurrency_policy: 'always_enqueue', catch_up_max: 3, assignee_agent_instance_id: agentId });
    expect(patched.body.triggers).toHaveLength(1);
    expect((await h.api('GET', `/api/office/routines/${routine.id}`)).body.name).toBe('Renamed');

    expect((await h.api('PATCH', '/api/office/routines/rtn_nope', { name: 'x' })).status).toBe(404);
    expect((await h.api('PATCH', `/api/office/routines/${routine.id}`, { catch_up_policy: 'sometimes' })).status).toBe(400);

    const deleted = await h.api('DELETE', `/api/office/routines/${routine.id}`);
    expect(deleted.status).toBe(204);
    expect((await h.api('GET', `/api/office/routines/${routine.id}`)).body.status).toBe('archived');
    expect((await h.api('DELETE', `/api/office/routines/${routine.id}`)).status).toBe(204);
    expect((await h.api('DELETE', '/api/office/routines/rtn_nope')).status).toBe(404);
    const trigger = routine.triggers[0];
    expect((await h.api('PATCH', `/api/office/routine-triggers/${trigger.id}`, { enabled: true })).status).toBe(409);
  });

  it('adds, patches and deletes triggers through /routines/:id/triggers and /routine-triggers/:id', async () => {
    const { body } = await routineBody();
    const routine = (await h.api('POST', '/api/office/routines', body)).body;
    expect(routine.triggers).toEqual([]);

    const added = await h.api('POST', `/api/office/routines/${routine.id}/triggers`, { kind: 'schedule', cron_expression: '0 9 * * *', timezone: 'UTC' });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ routine_id: routine.id, kind: 'schedule', cron_expression: '0 9 * * *', enabled: true });
    expect(added.body.next_run_at).toMatch(/T09:00:00\.000Z$/);

    const bearer = await h.api('POST', `/api/office/routines/${routine.id}/triggers`, { kind: 'webhook', signing_mode: 'bearer', secret: 'my-own-secret' });
    expect(bearer.status).toBe(201);
    expect(bearer.body.secret).toBe('my-own-secret');
    expect((await h.api('POST', `/api/office/routines/${routine.id}/triggers`, { kind: 'webhook', signing_mode: 'bearer', secret: '' })).status).toBe(400);
    expect((await h.api('POST', '/api/office/routines/rtn_nope/triggers', { kind: 'manual' })).status).toBe(404);

    const moved = await h.api('PATCH', `/api/office/routine-triggers/${added.body.id}`, { cron_expression: '30 18 * * *' });
    expect(moved.status).toBe(200);
    expect(moved.body.cron_expression).toBe('30 18 * * *');
    expect(moved.body.next_run_at).toMatch(/T18:30:00\.000Z$/);

    const disabled = await h.api('PATCH', `/api/office/routine-triggers/${added.body.id}`, { enabled: false });
    expect(disabled.body.enabled).toBe(false);
    const patchedHook = await h.api('PATCH', `/api/office/routine-triggers/${bearer.body.id}`, { secret: 'rotated-secret' });
    expect(patchedHook.status).toBe(200);
    expect(patchedHook.body).not.toHaveProperty('secret');
    expect(patchedHook.body.has_secret).toBe(true);
    expect((await h.api('PATCH', `/api/office/routine-triggers/${added.body.id}`, { cron_expression: '99 * * * *' })).status).toBe(400);

    expect((await h.api('DELETE', `/api/office/routine-triggers/${bearer.body.id}`)).status).toBe(204);
    expect((await h.api('DELETE', `/api/office/routine-triggers/${bearer.body.id}`)).status).toBe(404);
    const detail = await h.api('GET', `/api/office/routines/${routine.id}`);
    expect(detail.body.triggers.map((t: any) => t.id)).toEqual([added.body.id]);
  });

  it('GET /routine-triggers/:id/preview?count=3 gives the next 3 fire times', async () => {
    const { body } = await routineBody({ triggers: [{ kind: 'schedule', cron_expression: '0 9 * * *', timezone: 'UTC' }, { kind: 'manual' }] });
    const routine = (await h.api('POST', '/api/office/routines', body)).body;
    const before = Date.now();
    const preview = await h.api('GET', `/api/office/routine-triggers/${routine.triggers[0].id}/preview?count=3`);
    expect(preview.status).toBe(200);
    const times: string[] = preview.body.next_fire_times;
    expect(times).toHaveLength(3);
    for (const time of times) expect(time).toMatch(/T09:00:00\.000Z$/);
    const ms = times.map((t) => Date.parse(t));
    expect(ms[0]! - before).toBeGreaterThan(-1000);
    expect(ms[0]! - before).toBeLessThanOrEqual(DAY);
    expect(ms[1]! - ms[0]!).toBe(DAY);
    expect(ms[2]! - ms[1]!).toBe(DAY);

    const seconds = await h.api('POST', `/api/office/routines/${routine.id}/triggers`, { kind: 'schedule', cron_expression: '*/10 * * * * *' });
    const secondsPreview = await h.api('GET', `/api/office/routine-triggers/${seconds.body.id}/preview?count=3`);
    const gaps = secondsPreview.body.next_fire_times.map((t: string) => Date.parse(t));
    expect(gaps[1] - gaps[0]).toBe(10_000);
    expect(gaps[2] - gaps[1]).toBe(10_000);

    expect((await h.api('GET', `/api/office/routine-triggers/${routine.triggers[1].id}/preview?count=3`)).status).toBe(400);
    expect((await h.api('GET', `/api/office/routine-triggers/${routine.triggers[0].id}/preview?count=0`)).status).toBe(400);
    expect((await h.api('GET', '/api/office/routine-triggers/trg_nope/preview')).status).toBe(404);
  });

  it("rejects an invalid cron with a 400 whose message carries croner's message, and creates nothing", async () => {
    const { body, workspaceId } = await routineBody({ triggers: [{ kind: 'schedule', cron_expression: '61 * * * *' }] });
    const response = await h.api('POST', '/api/office/routines', body);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('validation_error');
    expect(response.body.error.message).toContain('CronPattern: Invalid value for minute: 61');
    expect(response.body.error.message).toContain('triggers.0.cron_expression');
    const sevenFields = await h.api('POST', '/api/office/routines', { ...body, triggers: [{ kind: 'schedule', cron_expression: '* * * * * * *' }] });
    expect(sevenFields.status).toBe(400);
    expect(sevenFields.body.error.message).toMatch(/7 fields/);
    const list = await h.api('GET', `/api/office/routines?workspace_id=${workspaceId}`);
    expect(list.body).toEqual([]);
  });

  it('rejects an invalid timezone with a 400', async () => {
    const { body } = await routineBody({ triggers: [{ kind: 'schedule', cron_expression: '0 9 * * *', timezone: 'Mars/Olympus_Mons' }] });
    const response = await h.api('POST', '/api/office/routines', body);
    expect(response.status).toBe(400);
    expect(response.body.error.message).toContain('timezone');
    const empty = await h.api('POST', '/api/office/routines', { ...body, triggers: [{ kind: 'schedule', cron_expression: '0 9 * * *', timezone: '' }] });
    expect(empty.status).toBe(400);
  });

  it('defaults a schedule trigger timezone to the workspace zone, then UTC', async () => {
    const zoned = await seedAgent(h, {}, { timezone: 'America/New_York' });
    const inZone = await h.api('POST', '/api/office/routines', {
      workspace_id: zoned.workspaceId, name: 'NY', assignee_agent_instance_id: zoned.agentId,
      triggers: [{ kind: 'schedule', cron_expression: '0 9 * * *' }],
    });
    expect(inZone.status).toBe(201);
    expect(inZone.body.triggers[0].timezone).toBe('America/New_York');
    // 09:00 in New York is 13:00 or 14:00 UTC, never 09:00 UTC.
    expect(inZone.body.triggers[0].next_run_at).toMatch(/T1[34]:00:00\.000Z$/);

    const plain = await seedAgent(h);
    const inUtc = await h.api('POST', '/api/office/routines', {
      workspace_id: plain.workspaceId, name: 'UTC', assignee_agent_instance_id: plain.agentId,
      triggers: [{ kind: 'schedule', cron_expression: '0 9 * * *' }],
    });
    expect(inUtc.body.triggers[0].timezone).toBe('UTC');
    expect(inUtc.body.triggers[0].next_run_at).toMatch(/T09:00:00\.000Z$/);
  });

  it('auto-declares {{new_var}} from the template on save (text, no default, not required), but not built-ins', async () => {
    const { body } = await routineBody({
      task_template: { title: 'Deploy {{new_var}} on {{date}}', description: 'at {{datetime}} by {{ owner }}' },
      variables: [{ name: 'owner', type: 'text', default: 'ops' }],
    });
    const created = await h.api('POST', '/api/office/routines', body);
    expect(created.status).toBe(201);
    expect(created.body.variables).toEqual([
      expect.objectContaining({ name: 'owner', type: 'text', default: 'ops' }),
      { name: 'new_var', type: 'text', required: false },
    ]);
    const patched = await h.api('PATCH', `/api/office/routines/${created.body.id}`, {
      task_template: { title: 'Deploy {{new_var}} to {{environment}}' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.variables.map((v: any) => v.name)).toEqual(['owner', 'new_var', 'environment']);
    expect(patched.body.variables[2]).toEqual({ name: 'environment', type: 'text', required: false });
  });

  it('lists routine runs newest first (two fires)', async () => {
    const { body } = await routineBody({ concurrency_policy: 'always_enqueue', triggers: [{ kind: 'manual' }] });
    const routine = (await h.api('POST', '/api/office/routines', body)).body;
    const first = await h.api('POST', `/api/office/routines/${routine.id}/fire`, {});
    expect(first.status).toBe(202);
    // The second fire starts on a later millisecond than the first, so that the order is by time.
    await h.waitFor(() => Date.now() > Date.parse(first.body.routine_run.started_at), 'the clock to pass the first fire');
    const second = await h.api('POST', `/api/office/routines/${routine.id}/fire`);
    expect(second.status).toBe(202);
    const runs = await h.api('GET', `/api/office/routines/${routine.id}/runs`);
    expect(runs.status).toBe(200);
    expect(runs.body.map((r: any) => r.id)).toEqual([second.body.routine_run.id, first.body.routine_run.id]);
    expect(Date.parse(runs.body[0].started_at)).toBeGreaterThan(Date.parse(runs.body[1].started_at));
    for (const run of runs.body) expect(run).toMatchObject({ source: 'manual', routine_id: routine.id, trigger_id: routine.triggers[0].id });
    const detail = await h.api('GET', `/api/office/routines/${routine.id}`);
    expect(detail.body.recent_runs.map((r: any) => r.id)).toEqual([second.body.routine_run.id, first.body.routine_run.id]);
    expect((await h.api('GET', '/api/office/routines/rtn_nope/runs')).status).toBe(404);
  });
});
