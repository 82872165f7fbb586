#!/usr/bin/env node
/**
 * An example agent for Office Scheduler's `command` executor, used by `npm run demo`.
 *
 * The scheduler starts it once per run with the assembled prompt on stdin and OFFICE_* variables
 * in the environment (see the README's "Executors"). It "works" for a moment, then prints a line
 * of chatter and, last, one JSON object: the run's result. `summary` becomes the continuation
 * summary that the next taskless run sees in its prompt; `actions` are applied by the scheduler
 * after the run (here: a task it was woken for is moved to DONE).
 *
 * Replace the middle with a real agent (an LLM CLI, a script) and keep the contract: exit 0 on
 * success, the result as the last JSON line on stdout, errors on stderr with a non-zero exit.
 */
import { setTimeout as sleep } from 'node:timers/promises';

async function readPrompt() {
  if (process.stdin.isTTY) return '';
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

const prompt = await readPrompt();
const source = process.env.OFFICE_WAKE_SOURCE || 'unknown';
const taskId = process.env.OFFICE_TASK_ID || '';
const firstLine = prompt.split('\n').find((line) => line.trim() && !line.startsWith('#')) ?? '';

process.stdout.write(`example agent: woke for '${source}'${taskId ? ` on task ${taskId}` : ''}; prompt has ${prompt.length} characters\n`);
// Long enough to watch the agent's state chart sit in `working` on the dashboard.
await sleep(Number(process.env.EXAMPLE_AGENT_WORK_MS ?? 2000));

const result = {
  summary: `Last woke for '${source}' at ${new Date().toISOString()}${firstLine ? `; the prompt began: ${firstLine.slice(0, 120)}` : ''}`,
  cost_usd: 0,
  actions: taskId ? [{ type: 'move_task', task_id: taskId, state: 'DONE' }] : [],
};
process.stdout.write(`${JSON.stringify(result)}\n`);
