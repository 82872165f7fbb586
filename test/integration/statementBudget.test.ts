import { afterEach, describe, expect, it } from 'vitest';
import { measureWakeupCost } from '../../bench/statementsPerWakeup.js';
import { startHarness, seedAgent, type Harness } from '../helpers/harness.js';

/**
 * The statement budget of one wakeup, from POST /tasks with an assignee to the run's finish, the
 * outbox and snapshot writes included (bench P2b prints the same figure): 12 statements in 3
 * transactions. BEGIN and COMMIT count. Assignment: the guarded task insert and the enqueue-or-fold;
 * claim: the claim that reads what the dispatch decides on, and the run's start; finish: the run's
 * close and the wakeup's end. A change that adds SQL to the hot path fails here instead of slowing
 * every wakeup unnoticed.
 */
const BUDGET = { statements: 12, transactions: 3 };
/** A comment lookup and the like can vary by a statement now and then; the mean of 50 absorbs it. */
const MARGIN = 0.5;

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

describe('statement budget', () => {
  it('one assigned task costs at most the budgeted statements and transactions, from assignment to finish', async () => {
    let started = 0;
    h = await startHarness({ OFFICE_LOOP_DETECTOR_RUNS: '0' }, new Map([['noop', async () => {
      started++;
      return {};
    }]]));
    const { workspaceId, agentId } = await seedAgent(h, { executor: { kind: 'function', name: 'noop' } });
    const assign = async (i: number) => {
      const created = await h!.api('POST', '/api/office/tasks', { workspace_id: workspaceId, title: `t${i}`, assignee_agent_instance_id: agentId });
      expect(created.status).toBe(201);
    };
    // Warm up: the first wakeups also write what is written once (the actor's first snapshot).
    await measureWakeupCost(h.scheduler, agentId, () => started, 5, (i) => assign(-i - 1));

    const cost = await measureWakeupCost(h.scheduler, agentId, () => started, 50, assign);

    expect(cost.statements).toBeLessThanOrEqual(BUDGET.statements + MARGIN);
    expect(cost.transactions).toBeLessThanOrEqual(BUDGET.transactions);
  });

  it('an assignment commits its task_assigned wakeup in its own transaction and leaves no outbox row behind', async () => {
    h = await startHarness({}, new Map([['noop', async () => ({})]]));
    const { workspaceId, agentId } = await seedAgent(h, { executor: { kind: 'function', name: 'noop' } });
    await h.scheduler.events.idle();
    const task = await h.scheduler.services.tasks.createTask({ workspace_id: workspaceId, title: 'T', assignee_agent_instance_id: agentId });
    // Both read at once (each call reads before it returns), from the inspector's own connection:
    // no subscriber after commit has had a turn yet.
    const [wakeups, outbox] = await Promise.all([
      h.inspect.rows('agent_wakeup_requests', { task_id: task.id }, { columns: ['source'] }),
      h.inspect.rows('event_outbox', {}, { columns: ['type'] }),
    ]);
    expect(wakeups).toEqual([{ source: 'task_assigned' }]);
    expect(outbox).toEqual([]);
  });
});
