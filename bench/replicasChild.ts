/**
 * One replica for P6b and P6c, in its own process: the server src/main.ts starts (loadConfig from
 * this process's environment, OFFICE_DATABASE_URL, OFFICE_REPLICA_ID, createScheduler, start()),
 * with two function executors a bench needs and a command executor could not give at saturation:
 * `noop` returns at once, `hold` runs until its session is aborted.
 *
 * It talks to the bench over IPC: it sends `{ type: 'ready', url }` once listening and
 * `{ type: 'started', count, statements, transactions }` (executor starts so far, and the store's
 * statements and write transactions, its NOTIFYs and heartbeats included) every STARTED_EVERY_MS while they move;
 * on `{ type: 'assign', … }` it makes those task assignments itself, through the same service call
 * its HTTP route makes, and answers `{ type: 'assigned' }`.
 */
import { loadConfig } from '../src/config.js';
import type { AgentFunction } from '../src/executors/types.js';
import { createScheduler } from '../src/scheduler.js';

export type ToReplica = { type: 'assign'; workspaceId: string; agentIds: string[]; from: number; count: number };
export type FromReplica = { type: 'ready'; url: string } | { type: 'started'; count: number; statements: number; transactions: number } | { type: 'assigned' };

const STARTED_EVERY_MS = 10;

let started = 0;
const noop: AgentFunction = () => {
  started++;
  return {};
};
const hold: AgentFunction = (request) => new Promise((resolve) => {
  started++;
  request.signal?.addEventListener('abort', () => resolve({}), { once: true });
});

const send = (message: FromReplica) => process.send!(message);

const scheduler = await createScheduler({ config: loadConfig(), functions: new Map([['noop', noop], ['hold', hold]]) });
const { url } = await scheduler.start();

let reported = '';
setInterval(() => {
  const counts = { count: started, statements: scheduler.store.statementsExecuted(), transactions: scheduler.store.transactionsExecuted() };
  if (JSON.stringify(counts) === reported) return;
  reported = JSON.stringify(counts);
  send({ type: 'started', ...counts });
}, STARTED_EVERY_MS).unref();

process.on('message', async (message: ToReplica) => {
  if (message.type !== 'assign') return;
  const { workspaceId, agentIds, from, count } = message;
  const creations: Promise<unknown>[] = [];
  for (let i = from; i < from + count; i++) {
    creations.push(scheduler.services.tasks.createTask({ workspace_id: workspaceId, title: `t${i}`, assignee_agent_instance_id: agentIds[i % agentIds.length]! }));
  }
  await Promise.all(creations);
  send({ type: 'assigned' });
});

process.on('SIGTERM', () => {
  scheduler.stop().then(() => process.exit(0), () => process.exit(1));
});
process.on('disconnect', () => process.exit(1));
send({ type: 'ready', url: url! });
