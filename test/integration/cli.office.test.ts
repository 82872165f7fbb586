/**
 * The CLI for the whole API a person uses from a terminal (agents, tasks, runs, wake, cancel,
 * quotas), against the real server of the harness and real child-process agents. Most commands run
 * through the CLI's `main` in this process; --version and help also through the real bin.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliHere, type CliResult } from '../helpers/cli.js';
import { FIXTURES, fixtureAgent, startHarness, type Harness } from '../helpers/harness.js';
import { freePort } from '../helpers/ports.js';

const TOKEN = 'cli-office-token';
const auth = { authorization: `Bearer ${TOKEN}` };

let h: Harness;
let workspaceId: string;

function office(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return runCliHere(args, { OFFICE_API_URL: h.url, OFFICE_API_TOKEN: TOKEN, ...env });
}

/** A command that must succeed, with --json: its parsed output. */
async function officeJson<T = any>(args: string[], env: Record<string, string | undefined> = {}): Promise<T> {
  const result = await office([...args, '--json'], env);
  expect(result.stderr, args.join(' ')).toBe('');
  expect(result.code, args.join(' ')).toBe(0);
  return JSON.parse(result.stdout) as T;
}

async function ok(args: string[]): Promise<string> {
  const result = await office(args);
  expect(result.stderr, args.join(' ')).toBe('');
  expect(result.code, args.join(' ')).toBe(0);
  return result.stdout;
}

beforeAll(async () => {
  h = await startHarness({ OFFICE_API_TOKEN: TOKEN });
  workspaceId = (await h.api('POST', '/api/office/workspaces', { name: 'Acme' }, auth)).body.id;
});

afterAll(async () => {
  await h?.stop();
});

describe('office-scheduler agents', () => {
  it('creates an agent with a command executor, lists it, shows it, pauses and resumes it', async () => {
    const created = await officeJson(['agents', 'create', 'Docs writer', '--workspace', 'Acme', '--role', 'specialist',
      '--command', process.execPath, `--arg=${join(FIXTURES, 'succeed.mjs')}`, '--cooldown', '0']);
    expect(created).toMatchObject({ name: 'Docs writer', role: 'specialist', workspace_id: workspaceId, cooldown_sec: 0,
      executor: { kind: 'command', command: process.execPath, args: [join(FIXTURES, 'succeed.mjs')] } });
    expect((await h.api('GET', `/api/office/agents/${created.id}`, undefined, auth)).body.name).toBe('Docs writer');

    const [header, ...rows] = (await ok(['agents', 'list', '--workspace', 'Acme'])).trim().split('\n');
    expect(header).toMatch(/^ID\s+NAME\s+WORKSPACE\s+ROLE\s+STATUS\s+ACTOR\s+EXECUTOR$/);
    expect(rows.find((row) => row.startsWith(created.id))).toMatch(/\sDocs writer\s+Acme\s+specialist\s+idle\s+\S+\s+command: /);

    const shown = await ok(['agents', 'show', 'docs WRITER']);
    expect(shown).toContain(`Agent 'Docs writer' (${created.id})`);
    expect(shown).toMatch(/executor\s+command: \S+ \S+succeed\.mjs/);

    expect(await ok(['agents', 'pause', 'Docs writer'])).toBe(`Paused 'Docs writer' (${created.id}): it is paused.\n`);
    expect((await h.api('GET', `/api/office/agents/${created.id}`, undefined, auth)).body.status).toBe('paused');
    expect(await officeJson(['agents', 'resume', created.id])).toMatchObject({ id: created.id, status: 'idle' });
    expect((await h.api('GET', `/api/office/agents/${created.id}`, undefined, auth)).body.status).toBe('idle');
  });

  it('takes --executor as JSON, and refuses a member (admin only) with the API\'s message', async () => {
    const created = await officeJson(['agents', 'create', 'Claude', '--workspace', workspaceId, '--executor', '{"kind":"claude_code","cwd":"/srv/repo"}']);
    expect(created.executor).toMatchObject({ kind: 'claude_code', cwd: '/srv/repo' });

    const member = (await h.api('POST', '/api/office/tokens', { name: 'member', role: 'member' }, auth)).body.token as string;
    const refused = await office(['agents', 'create', 'Nope', '--workspace', 'Acme'], { OFFICE_API_TOKEN: member });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/\/api\/office\/agents failed: 403 forbidden: /);
    // A member may pause and resume: a PATCH of the status alone.
    expect(await officeJson(['agents', 'pause', 'Claude'], { OFFICE_API_TOKEN: member })).toMatchObject({ status: 'paused' });
  });
});

describe('office-scheduler tasks, runs and wake', () => {
  it('creates an assigned task, follows its run to its transcript, comments on the task and moves it', async () => {
    const agent = (await h.api('POST', '/api/office/agents', {
      workspace_id: workspaceId, name: 'Worker', role: 'worker', cooldown_sec: 0, executor: fixtureAgent('succeed.mjs'),
    }, auth)).body;

    const created = await ok(['tasks', 'create', 'Write the changelog', '--workspace', 'Acme', '--assignee', 'Worker', '--description', 'For 0.2']);
    const taskId = /^Created task (tsk_\w+) 'Write the changelog' in workspace 'Acme': TODO, assigned to 'Worker'/.exec(created)?.[1];
    expect(taskId, created).toBeDefined();

    const run = await h.waitFor(async () => (await officeJson<any[]>(['runs', 'list', '--task', taskId!])).find((r) => r.status === 'succeeded'), 'the run of the assigned task');
    expect(run).toMatchObject({ agent_id: agent.id, task_id: taskId });
    const [runsHeader, runRow] = (await ok(['runs', 'list', '--agent', 'Worker', '--status', 'succeeded'])).trim().split('\n');
    expect(runsHeader).toMatch(/^ID\s+STARTED\s+AGENT\s+STATUS\s+TASK\s+COST\s+OUTCOME$/);
    expect(runRow).toMatch(new RegExp(`^${run.id}\\s+\\S+ \\S+\\s+Worker\\s+succeeded\\s+${taskId}\\s+\\$0\\.0000\\s+handled task_assigned$`));

    const shown = await ok(['runs', 'show', run.id]);
    expect(shown).toMatch(new RegExp(`^Run ${run.id}: succeeded\n`));
    expect(shown).toMatch(/summary\s+handled task_assigned/);
    expect(await ok(['runs', 'transcript', run.id])).toMatch(new RegExp(`stdout: succeed fixture handling run ${run.id}`));
    expect((await officeJson(['runs', 'transcript', run.id])).run_id).toBe(run.id);

    expect(await ok(['tasks', 'comment', taskId!, 'Looks', 'good'])).toMatch(new RegExp(`^Commented on task ${taskId}`));
    const comments = (await h.api('GET', `/api/office/tasks/${taskId}/comments`, undefined, auth)).body;
    expect(comments.map((c: { body: string }) => c.body)).toEqual(['Looks good']);

    const task = await ok(['tasks', 'show', taskId!]);
    expect(task).toContain(`Task ${taskId}: Write the changelog`);
    expect(task).toMatch(/assignee\s+Worker/);
    expect(task).toContain('For 0.2');
    expect(task).toMatch(/Comments \(1\):\n.*admin: Looks good/);

    expect(await ok(['tasks', 'move', taskId!, 'done', '--note', 'shipped'])).toBe(`Moved task ${taskId} 'Write the changelog' to DONE.\n`);
    expect((await h.api('GET', `/api/office/tasks/${taskId}`, undefined, auth)).body.state).toBe('DONE');
    const listed = await ok(['tasks', 'list', '--workspace', 'Acme', '--state', 'DONE']);
    expect(listed).toMatch(new RegExp(`^${taskId}\\s+DONE\\s+Write the changelog\\s+Worker\\s+-\\s`, 'm'));
    expect(await officeJson(['tasks', 'list', '--workspace', 'Acme', '--state', 'in-progress'])).toEqual([]);

    const moveMissing = await office(['tasks', 'move', 'tsk_missing', 'DONE']);
    expect(moveMissing.code).toBe(1);
    expect(moveMissing.stderr).toMatch(/404 not_found: .*tsk_missing/);
  });

  it('wakes an agent by name, and the wakeup says why it ran', async () => {
    const woken = await ok(['wake', 'Worker', '--reason', 'from the terminal']);
    const wakeupId = /^Woke 'Worker': wakeup (wk_\w+) is queued \(queued\)/.exec(woken)?.[1];
    expect(wakeupId, woken).toBeDefined();
    const wakeup = await h.waitFor(async () => {
      const w = (await h.api('GET', `/api/office/wakeups/${wakeupId}`, undefined, auth)).body;
      return w.status === 'finished' && w;
    }, 'the wakeup to finish');
    expect(wakeup).toMatchObject({ source: 'user', reason: 'from the terminal' });
    expect(await ok(['wakeups', 'why', wakeupId!])).toMatch(/^finished: run run_\w+ completed\n$/);
  });

  it('cancels a running run', async () => {
    const sleeper = (await h.api('POST', '/api/office/agents', {
      workspace_id: workspaceId, name: 'Sleeper', role: 'worker', cooldown_sec: 0, executor: fixtureAgent('sleep.mjs', { FIXTURE_SLEEP_MS: '60000' }),
    }, auth)).body;
    const { wakeup } = await officeJson(['wake', sleeper.id]);
    const run = await h.waitFor(async () => (await officeJson<any[]>(['runs', 'list', '--agent', 'Sleeper', '--status', 'running'])).find((r) => r.wakeup_id === wakeup.id), 'the run to start');

    expect(await ok(['cancel', run.id, '--reason', 'not today'])).toBe(`Cancelled run ${run.id}: it is cancelled, and its wakeup is not retried.\n`);
    const stored = (await h.api('GET', `/api/office/runs/${run.id}`, undefined, auth)).body;
    expect(stored.status).toBe('cancelled');
    expect(stored.error).toContain('not today');

    const again = await office(['cancel', run.id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/409 \w+: /);
  });
});

describe('office-scheduler quotas', () => {
  it('says no subscription is at its limit, and --json prints the list', async () => {
    expect(await ok(['quotas'])).toBe('No subscription is at its limit.\n');
    expect(await officeJson(['quotas'])).toEqual([]);
  });
});

describe('office-scheduler usage', () => {
  it('refuses bad arguments with exit 2 and a clear message, calling nothing', async () => {
    // Nothing listens here: a command that called the API would exit 3, not 2.
    const nowhere = { OFFICE_API_URL: `http://127.0.0.1:${await freePort()}` };
    const cases: Array<[string[], RegExp]> = [
      [['agents'], /'agents' needs a subcommand: list, show, create, pause or resume/],
      [['agents', 'frob'], /unknown command 'agents frob'; expected 'agents list', 'agents show'/],
      [['agents', 'create', 'X'], /agents create needs --workspace <name\|id>/],
      [['agents', 'create', '--workspace', 'Acme'], /agents create needs a name/],
      [['agents', 'create', 'X', '--workspace', 'Acme', '--role', 'boss'], /--role 'boss' is not a role; expected one of ceo, coordinator, worker/],
      [['agents', 'create', 'X', '--workspace', 'Acme', '--executor', '{nope'], /--executor expects a JSON object/],
      [['agents', 'create', 'X', '--workspace', 'Acme', '--executor', '{"kind":"command"}'], /the executor: /],
      [['agents', 'create', 'X', '--workspace', 'Acme', '--executor', '{"kind":"codex"}', '--cwd', '/tmp'], /--executor gives the whole executor/],
      [['agents', 'create', 'X', '--workspace', 'Acme', '--kind', 'robot'], /--kind 'robot' is not an executor kind; expected one of command, claude_code, codex, gemini_cli/],
      [['agents', 'create', 'X', '--workspace', 'Acme', '--cooldown=soon'], /--cooldown expects a whole number from 0/],
      [['agents', 'show'], /agents show needs an agent/],
      [['agents', 'pause', 'a', 'b'], /unexpected argument 'b'/],
      [['tasks', 'create', '   ', '--workspace', 'Acme'], /<title>: /],
      [['tasks', 'create', 'T'], /tasks create needs --workspace/],
      [['tasks', 'move', 'tsk_1'], /tasks move needs a task id and a state/],
      [['tasks', 'move', 'tsk_1', 'doing'], /the state 'doing' is not a task state; expected one of TODO, IN_PROGRESS/],
      [['tasks', 'comment', 'tsk_1'], /tasks comment needs a task id and the comment/],
      [['tasks', 'list', '--state', 'later'], /--state 'later' is not a task state/],
      [['tasks', 'list', '--limit', '0'], /--limit expects a whole number from 1 to 1000, got '0'/],
      [['tasks', 'list', '--colour'], /Unknown option '--colour'/],
      [['runs', 'list', '--status', 'sleeping'], /--status 'sleeping' is not a run status; expected one of queued, running/],
      [['runs', 'show'], /runs show needs a run id/],
      [['runs', 'transcript'], /runs transcript needs a run id/],
      [['wake'], /wake needs an agent/],
      [['wake', 'Worker', '--reason', 'x'.repeat(2001)], /--reason: /],
      [['cancel'], /cancel needs a run id/],
      [['cancel', 'run_1', '--reason', ' '], /--reason expects 1 to 2000 characters/],
      [['quotas', 'now'], /unexpected argument 'now'/],
      [['wakeups', 'list', '--source', 'pager'], /--source 'pager' is not a wakeup source/],
      [['help', 'nothing'], /unknown command 'nothing'/],
    ];
    for (const [args, message] of cases) {
      const result = await office(args, nowhere);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout, args.join(' ')).toBe('');
      expect(result.stderr, args.join(' ')).toMatch(message);
    }
    const topic = await office(['tasks', 'move', 'tsk_1'], nowhere);
    expect(topic.stderr).toContain('Run `office-scheduler help tasks` for usage.');
  });

  it('prints each command\'s help for help <command> and <command> --help, naming every form', async () => {
    const forms: Record<string, string[]> = {
      agents: ['agents list', 'agents show <name|id>', 'agents create <name> --workspace <name|id>', 'agents pause <name|id>', 'agents resume <name|id>'],
      tasks: ['tasks list', 'tasks show <id>', 'tasks create <title>', 'tasks move <id> <state>', 'tasks comment <id> <text>'],
      runs: ['runs list', 'runs show <id>', 'runs transcript <id>'],
      wake: ['wake <name|id>'],
      cancel: ['cancel <run id>'],
      quotas: ['quotas [--all]'],
      wakeups: ['wakeups list', 'wakeups why <id>'],
      routines: ['routines list', 'routines fire <id>'],
      tokens: ['tokens create <name>', 'tokens list', 'tokens revoke <id>'],
    };
    const top = await office(['help']);
    for (const [command, synopses] of Object.entries(forms)) {
      expect(top.stdout).toMatch(new RegExp(`^  ${command}\\s+\\S`, 'm'));
      const help = await office(['help', command]);
      expect(help.code, command).toBe(0);
      for (const synopsis of synopses) expect(help.stdout, command).toContain(`  ${synopsis}`);
      expect(await office([command, '--help'])).toEqual(help);
      expect(await office([command, 'list', '-h'])).toEqual(help);
    }
  });

  it('the real bin prints --version from package.json, and a command\'s help', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    const printed = await runCli(['--version'], {});
    expect(printed).toMatchObject({ code: 0, stdout: `office-scheduler ${version}\n`, stderr: '' });
    const help = await runCli(['tasks', '--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: office-scheduler tasks <list\|show\|create\|move\|comment> \[options\]/);
  }, 60_000);
});
