/**
 * P2b: SQL statements and transactions per wakeup, from the assignment to the run's finish, the
 * outbox and snapshot writes included. Assignments go one at a time, each measured until the
 * store has gone quiet after its run finished, so group commit cannot share BEGIN/COMMIT between
 * wakeups and flatter the figure: this is the cost of one wakeup on its own.
 */
import type { Scheduler } from '../src/scheduler.js';
import { benchScheduler, type Figure } from './support.js';

export interface WakeupCost {
  statements: number;
  transactions: number;
}

/** How long the statement counter must stand still before a wakeup counts as done (after commit come the outbox and snapshot writes). */
const QUIET_MS = 15;

/**
 * Runs `assign(i)` for i in [0, n), each to its run's finish and the writes that follow, and returns
 * the mean cost of one. `assign` must create exactly one wakeup for `agentId` whose run starts
 * (`started` counts the executor's calls) and finishes. Nothing subscribes to the bus for this: a
 * subscriber would make events durable and add their outbox writes to the figure.
 */
export async function measureWakeupCost(
  scheduler: Pick<Scheduler, 'store' | 'supervisor'>, agentId: string, started: () => number, n: number, assign: (i: number) => Promise<unknown>,
): Promise<WakeupCost> {
  const { store, supervisor } = scheduler;
  await settle(store);
  const statements0 = store.statementsExecuted();
  const transactions0 = store.transactionsExecuted();
  for (let i = 0; i < n; i++) {
    const target = started() + 1;
    await assign(i);
    // The actor hears DISPATCH_ENDED only after the finish committed.
    while (started() < target || (supervisor.view(agentId)?.running ?? 0) > 0) await new Promise((resolve) => setTimeout(resolve, 1));
    await settle(store);
  }
  return {
    statements: (store.statementsExecuted() - statements0) / n,
    transactions: (store.transactionsExecuted() - transactions0) / n,
  };
}

/** Waits until no statement has run for QUIET_MS. */
async function settle(store: Scheduler['store']): Promise<void> {
  for (let last = -1; last !== store.statementsExecuted();) {
    last = store.statementsExecuted();
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
  }
}

export async function p2bStatementsPerWakeup(): Promise<Figure[]> {
  const N = 200;
  let started = 0;
  const bench = await benchScheduler({}, new Map([['noop', async () => {
    started++;
    return {};
  }]]));
  const { workspaceId, agentIds } = await bench.seedAgents(1, { executor: { kind: 'function', name: 'noop' } });
  const { services } = bench.scheduler;
  const assign = (i: number) => services.tasks.createTask({ workspace_id: workspaceId, title: `t${i}`, assignee_agent_instance_id: agentIds[0]! });
  await measureWakeupCost(bench.scheduler, agentIds[0]!, () => started, 20, (i) => assign(-i - 1));
  const cost = await measureWakeupCost(bench.scheduler, agentIds[0]!, () => started, N, assign);
  await bench.stop();
  return [
    { id: 'P2b', name: 'statements per wakeup', value: cost.statements, unit: 'statements', goal: '<= 12', ok: cost.statements <= 12,
      note: `assignment to finish, outbox and snapshot included; mean of ${N}, one at a time` },
    { id: 'P2b', name: 'transactions per wakeup', value: cost.transactions, unit: 'transactions', goal: '<= 3', ok: cost.transactions <= 3 },
  ];
}
