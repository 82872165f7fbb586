/**
 * Spec scenarios for HandleWakeupFailure: rate-limit retries with a parsed reset time (all three
 * wordings), and generic failures that back off and then escalate to a person and the coordinator.
 * Real SQLite, real HTTP, real child-process agents (test/fixtures).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/client.js';
import { fixtureAgent, seedAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const BUFFER_SEC = 1;

const { listWakeups, listRuns, listActivity, createAgent, createTask, waitForWakeupStatus, waitForRun } = apiClient(() => h);

const ms = (iso: string) => Date.parse(iso);

/** Starts a harness, a worker on rate-limit.mjs with the given error text, and assigns it a task. */
async function failWithRateLimit(errorText: string, env: Record<string, string> = {}) {
  h = await startHarness({ OFFICE_RATE_LIMIT_BUFFER_SEC: String(BUFFER_SEC), ...env });
  const { workspaceId, agentId } = await seedAgent(h, { executor: fixtureAgent('rate-limit.mjs', { FIXTURE_ERROR: errorText }) });
  const task = await createTask({ workspace_id: workspaceId, title: 'Rate limited work', assignee_agent_instance_id: agentId });
  const wakeup = await h.waitFor(async () => {
    const [w] = await listWakeups({ agent_id: agentId, source: 'task_assigned' });
    return w?.status === 'scheduled_retry' ? w : undefined;
  }, 'the wakeup to wait for its retry');
  const [run] = await listRuns({ wakeup_id: wakeup.id });
  expect(run).toMatchObject({ status: 'failed', attempt: 1 });
  expect(run.error).toContain(errorText);
  const [retryEntry] = (await listActivity({ workspace_id: workspaceId, code: 'wakeup_retry_scheduled' })).filter((a) => a.wakeup_id === wakeup.id);
  return { workspaceId, agentId, taskId: task.id as string, wakeup, run, retryEntry };
}

/** The next instant at hh:mm UTC strictly after `now` (the spec's "next occurrence if past"). */
function nextUtcOccurrence(now: number, hour: number, minute: number): number {
  const d = new Date(now);
  const today = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), hour, minute, 0);
  return today > now ? today : today + 24 * 3_600_000;
}

describe('rate-limit retry with parsed reset time (spec scenarios)', () => {
  it('GIVEN a run fails with "Retry-After: 2" WHEN HandleWakeupFailure runs THEN the retry is scheduled for failure + 2 s + buffer, and later runs', async () => {
    const { workspaceId, agentId, taskId, wakeup, run, retryEntry } = await failWithRateLimit('rate_limit_error: Retry-After: 2');

    const failedAt = ms(run.finished_at);
    expect(wakeup.retry_count).toBe(1);
    expect(ms(wakeup.scheduled_retry_at)).toBe(failedAt + 2_000 + BUFFER_SEC * 1_000);
    expect(retryEntry).toBeDefined();
    expect(retryEntry.details).toMatchObject({
      source: 'rate_limit_parsed',
      parsed_reset_at: new Date(failedAt + 2_000).toISOString(),
      retry_count: 1,
      rate_limited: true,
    });
    const detail = await h!.api('GET', `/api/office/wakeups/${wakeup.id}`);
    expect(detail.body.explain).toContain('waiting to retry: attempt 2');

    // The provider's limit lifts: the agent now succeeds, and the retry runs at its scheduled time.
    const patched = await h!.api('PATCH', `/api/office/agents/${agentId}`, { executor: fixtureAgent('succeed.mjs') });
    expect(patched.status).toBe(200);
    const finished = await waitForWakeupStatus(wakeup.id, 'finished', 'the retried wakeup to finish');
    expect(finished.retry_count).toBe(1);
    const runs = (await listRuns({ wakeup_id: wakeup.id })).sort((a, b) => a.attempt - b.attempt);
    expect(runs.map((r) => [r.attempt, r.status])).toEqual([[1, 'failed'], [2, 'succeeded']]);
    expect(ms(runs[1].started_at)).toBeGreaterThanOrEqual(ms(wakeup.scheduled_retry_at));
    expect(runs[1].task_id).toBe(taskId);
    expect(finished.run_id).toBe(runs[1].id);
    // A parsed reset is not a backoff step: nothing was escalated.
    expect(await listActivity({ workspace_id: workspaceId, code: 'wakeup_escalated' })).toEqual([]);
  });

  it('GIVEN a run fails with "rate_limit_error: resets at 4:00 AM UTC" THEN the retry is scheduled for the next 04:00 UTC + buffer (source rate_limit_parsed)', async () => {
    const { wakeup, run, retryEntry } = await failWithRateLimit('rate_limit_error: resets at 4:00 AM UTC');

    const resetAt = nextUtcOccurrence(ms(run.finished_at), 4, 0);
    expect(wakeup.retry_count).toBe(1);
    expect(ms(wakeup.scheduled_retry_at)).toBe(resetAt + BUFFER_SEC * 1_000);
    expect(retryEntry.details).toMatchObject({
      source: 'rate_limit_parsed',
      parsed_reset_at: new Date(resetAt).toISOString(),
      retry_count: 1,
    });
  });

  it('GIVEN a run fails with "try again in 2 seconds" THEN the retry is scheduled for failure + 2 s + buffer (source rate_limit_parsed)', async () => {
    const { wakeup, run, retryEntry } = await failWithRateLimit('429 rate limit exceeded, please try again in 2 seconds');

    const failedAt = ms(run.finished_at);
    expect(wakeup.retry_count).toBe(1);
    expect(ms(wakeup.scheduled_retry_at)).toBe(failedAt + 2_000 + BUFFER_SEC * 1_000);
    expect(retryEntry.details).toMatchObject({
      source: 'rate_limit_parsed',
      parsed_reset_at: new Date(failedAt + 2_000).toISOString(),
    });
  });

  it('GIVEN a rate-limit error with no parseable reset THEN the exponential backoff applies (source backoff)', async () => {
    // A first step long enough that the test observes the wait before the retry runs; no jitter.
    const { wakeup, run, retryEntry } = await failWithRateLimit('429 Too Many Requests', { OFFICE_BACKOFF: '5s,10s,15s,20s' });

    expect(wakeup.retry_count).toBe(1);
    expect(ms(wakeup.scheduled_retry_at)).toBe(ms(run.finished_at) + 5_000);
    expect(retryEntry.details).toMatchObject({ source: 'backoff', parsed_reset_at: null, rate_limited: true });
  });
});

describe('generic failure: backoff, then escalation (spec scenarios)', () => {
  async function failFiveTimes(withCoordinator: boolean) {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h, { name: 'Flaky Worker', executor: fixtureAgent('fail.mjs') });
    let coordinatorId: string | null = null;
    if (withCoordinator) {
      coordinatorId = await createAgent(workspaceId, { name: 'Chief', role: 'coordinator' });
    }
    const task = await createTask({ workspace_id: workspaceId, title: 'Call the flaky API', assignee_agent_instance_id: agentId });
    const wakeup = await h.waitFor(async () => {
      const [w] = await listWakeups({ agent_id: agentId, source: 'task_assigned' });
      return w?.status === 'failed' ? w : undefined;
    }, 'the wakeup to fail after its retries');
    return { workspaceId, agentId, coordinatorId, taskId: task.id as string, wakeup };
  }

  it('GIVEN a run keeps failing with a network timeout WHEN retries exhaust MaxRetryCount THEN the wakeup fails, an agent.error inbox item is created and the coordinator gets an agent_error wakeup', async () => {
    const { workspaceId, agentId, coordinatorId, taskId, wakeup } = await failFiveTimes(true);

    expect(wakeup.retry_count).toBe(4);
    expect(wakeup.error).toContain('connection timed out after 30s');
    const runs = (await listRuns({ wakeup_id: wakeup.id })).sort((a, b) => a.attempt - b.attempt);
    expect(runs.map((r) => r.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(runs.every((r) => r.status === 'failed' && r.task_id === taskId)).toBe(true);

    // Each retry followed the backoff table (harness: 200ms,400ms,600ms,800ms, no jitter).
    const retries = (await listActivity({ workspace_id: workspaceId, code: 'wakeup_retry_scheduled' }))
      .filter((a) => a.wakeup_id === wakeup.id)
      .sort((a, b) => a.details.retry_count - b.details.retry_count);
    expect(retries.map((a) => a.details.retry_count)).toEqual([1, 2, 3, 4]);
    expect(retries.every((a) => a.details.source === 'backoff' && a.details.parsed_reset_at === null && a.details.rate_limited === false)).toBe(true);
    for (const [i, entry] of retries.entries()) {
      const failedRun = runs[i]!;
      expect(entry.run_id).toBe(failedRun.id);
      expect(ms(entry.details.scheduled_retry_at)).toBe(ms(failedRun.finished_at) + [200, 400, 600, 800][i]!);
      expect(ms(runs[i + 1]!.started_at)).toBeGreaterThanOrEqual(ms(entry.details.scheduled_retry_at));
    }

    const inbox = (await h!.api('GET', `/api/office/inbox?workspace_id=${workspaceId}`)).body as any[];
    const errors = inbox.filter((i) => i.kind === 'agent.error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ agent_id: agentId, task_id: taskId, ref_id: runs[4]!.id, status: 'open' });
    expect(errors[0].body).toContain('connection timed out after 30s');

    const escalations = await listWakeups({ agent_id: coordinatorId!, source: 'agent_error' });
    expect(escalations).toHaveLength(1);
    expect(escalations[0].payload).toMatchObject({ agent_profile_id: agentId, run_id: runs[4]!.id });
    expect(escalations[0].payload.error).toContain('connection timed out after 30s');
    // The coordinator actually gets woken about it.
    await waitForRun({ agent_id: coordinatorId!, wakeup_id: escalations[0].id }, 'succeeded', 'the coordinator to run on the agent_error wakeup');

    const [escalated] = (await listActivity({ workspace_id: workspaceId, code: 'wakeup_escalated' })).filter((a) => a.wakeup_id === wakeup.id);
    expect(escalated.details).toMatchObject({ coordinator_id: coordinatorId, retry_count: 4 });
    const detail = await h!.api('GET', `/api/office/wakeups/${wakeup.id}`);
    expect(detail.body.explain).toContain('failed after 4 retries');
  });

  it('GIVEN no coordinator in the workspace WHEN retries exhaust THEN the wakeup still fails with an inbox item and no agent_error wakeup is queued', async () => {
    const { workspaceId, agentId, wakeup } = await failFiveTimes(false);

    expect(wakeup.retry_count).toBe(4);
    expect(await listRuns({ wakeup_id: wakeup.id })).toHaveLength(5);
    const inbox = (await h!.api('GET', `/api/office/inbox?workspace_id=${workspaceId}`)).body as any[];
    expect(inbox.filter((i) => i.kind === 'agent.error' && i.agent_id === agentId)).toHaveLength(1);
    expect(await listWakeups({ workspace_id: workspaceId, source: 'agent_error' })).toEqual([]);
    const [escalated] = (await listActivity({ workspace_id: workspaceId, code: 'wakeup_escalated' })).filter((a) => a.wakeup_id === wakeup.id);
    expect(escalated.details).toMatchObject({ coordinator_id: null, retry_count: 4 });
  });
});
