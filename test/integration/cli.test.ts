/**
 * The `office-scheduler` CLI as a user runs it: the real bin (node bin/office-scheduler.mjs) in a
 * child process, against the real server started by the harness, with OFFICE_API_TOKEN set.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN as BIN, runCli, type CliResult } from '../helpers/cli.js';
import { fixtureAgent, startHarness, type Harness } from '../helpers/harness.js';

const TOKEN = 'cli-test-token';
/** For a test that runs several CLI processes one after another: each loads TypeScript through tsx, a few seconds apiece on two busy cores. */
const CLI_STEPS_TIMEOUT_MS = 90_000;
const auth = { authorization: `Bearer ${TOKEN}` };

function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return runCli(args, { OFFICE_API_URL: h.url, OFFICE_API_TOKEN: TOKEN, ...env });
}

let h: Harness;
let workspaceId: string;
let workerId: string;
let digestId: string;

beforeAll(async () => {
  h = await startHarness({ OFFICE_API_TOKEN: TOKEN });
  const ws = await h.api('POST', '/api/office/workspaces', { name: 'Acme' }, auth);
  workspaceId = ws.body.id;
  const worker = await h.api('POST', '/api/office/agents', {
    workspace_id: workspaceId, name: 'Worker', role: 'worker', cooldown_sec: 0, executor: fixtureAgent('succeed.mjs'),
  }, auth);
  workerId = worker.body.id;
  const digest = await h.api('POST', '/api/office/routines', {
    workspace_id: workspaceId, name: 'Nightly digest', assignee_agent_instance_id: workerId,
    task_template: { title: 'Digest about {{topic}}' },
    variables: [{ name: 'topic', type: 'text', required: true }],
    triggers: [{ kind: 'schedule', cron_expression: '0 3 * * *' }],
  }, auth);
  digestId = digest.body.id;
  const other = await h.api('POST', '/api/office/workspaces', { name: 'Elsewhere' }, auth);
  const otherAgent = await h.api('POST', '/api/office/agents', { workspace_id: other.body.id, name: 'Other', role: 'worker' }, auth);
  await h.api('POST', '/api/office/routines', {
    workspace_id: other.body.id, name: 'Other routine', assignee_agent_instance_id: otherAgent.body.id, triggers: [{ kind: 'manual' }],
  }, auth);
});

afterAll(async () => {
  await h?.stop();
});

describe('office-scheduler routines', () => {
  it('lists routines with trigger, cron, next fire and assignee, filtered by workspace', async () => {
    const all = await cli(['routines', 'list']);
    expect(all.code).toBe(0);
    expect(all.stdout).toContain('Other routine');

    const mine = await cli(['routines', 'list', '--workspace', workspaceId]);
    expect(mine.code).toBe(0);
    const lines = mine.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+WORKSPACE\s+STATUS\s+TRIGGER\s+CRON\s+NEXT FIRE\s+LAST RUN\s+ASSIGNEE$/);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(new RegExp(`^${digestId}\\s+Nightly digest\\s+Acme\\s+active\\s+schedule\\s+0 3 \\* \\* \\*\\s+\\d{4}-\\d\\d-\\d\\d 03:00:00Z\\s+never\\s+Worker$`));
  });

  it('fires a routine with --var values, and prints the routine run', async () => {
    const fired = await cli(['routines', 'fire', digestId, '--var', 'topic=billing', '--var', 'extra=a=b']);
    expect(fired.stderr).toBe('');
    expect(fired.code).toBe(0);
    expect(fired.stdout).toMatch(new RegExp(`^Fired routine ${digestId}: routine run \\S+ is task_created; task tsk_\\w+`));
    const runs = await h.api('GET', `/api/office/routines/${digestId}/runs`, undefined, auth);
    expect(runs.body[0].trigger_payload).toMatchObject({ topic: 'billing', extra: 'a=b' });
  });

  it("reports the API's own message and exits 1 when the API refuses", async () => {
    const missing = await cli(['routines', 'fire', digestId]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/400 validation_error: .*missing required variable 'topic'/);
    expect(missing.stdout).toBe('');

    const unknown = await cli(['routines', 'fire', 'rtn_nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('404 not_found');
  });
});

describe('office-scheduler wakeups', () => {
  it('lists wakeups filtered by agent and status, and explains one', async () => {
    const wakeup = await h.waitFor(async () => {
      const list = await h.api('GET', `/api/office/wakeups?agent_id=${workerId}&status=finished`, undefined, auth);
      return list.body[0];
    }, 'a finished wakeup for the worker');

    const listed = await cli(['wakeups', 'list', '--agent', workerId, '--status', 'finished']);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+REQUESTED\s+AGENT\s+SOURCE\s+STATUS\s+WHY$/);
    expect(lines.slice(1).every((line) => /\sWorker\s.*\sfinished\s/.test(line))).toBe(true);
    expect(listed.stdout).toContain(wakeup.id);

    const none = await cli(['wakeups', 'list', '--agent', workerId, '--status', 'cancelled']);
    expect(none).toMatchObject({ code: 0, stdout: 'No wakeups.\n' });

    const why = await cli(['wakeups', 'why', wakeup.id]);
    expect(why.code).toBe(0);
    expect(why.stdout).toBe(`${wakeup.explain}\n`);
    expect(why.stdout).toMatch(/^finished: run run_\w+ completed\n$/);

    const json = await cli(['wakeups', 'list', '--agent', workerId, '--json']);
    expect(JSON.parse(json.stdout).map((w: { id: string }) => w.id)).toContain(wakeup.id);
  });

  it('exits 1 with the API message for an unknown wakeup', async () => {
    const result = await cli(['wakeups', 'why', 'wk_missing']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/404 not_found: .*wk_missing/);
  });
});

describe('office-scheduler tokens', () => {
  it('creates a member token whose secret works once printed, lists it without the secret, and revokes it into 401s', async () => {
    const created = await cli(['tokens', 'create', 'ci-bot']);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const [line, secret] = created.stdout.trim().split('\n');
    const id = /\((tok_\w+)\)/.exec(line!)![1]!;
    expect(line).toBe(`Created member token 'ci-bot' (${id}). Its secret is shown only now; keep it:`);
    expect(secret).toMatch(/^ost_[\w-]{43}$/);

    const asMember = await cli(['routines', 'list', '--workspace', workspaceId], { OFFICE_API_TOKEN: secret });
    expect(asMember.code).toBe(0);
    expect(asMember.stdout).toContain('Nightly digest');
    // A member fires only its own routines; the digest is the admin's.
    const refused = await cli(['routines', 'fire', digestId, '--var', 'topic=x'], { OFFICE_API_TOKEN: secret });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/403 forbidden: .*owned by admin/);
    const notAdmin = await cli(['tokens', 'list'], { OFFICE_API_TOKEN: secret });
    expect(notAdmin.code).toBe(1);
    expect(notAdmin.stderr).toMatch(/403 forbidden: .*only an admin/);

    const listed = await cli(['tokens', 'list']);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+ROLE\s+CREATED\s+REVOKED$/);
    expect(lines.find((l) => l.startsWith(id))).toMatch(new RegExp(`^${id}\\s+ci-bot\\s+member\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ\\s+-$`));
    expect(listed.stdout).not.toContain(secret);

    const revoked = await cli(['tokens', 'revoke', id]);
    expect(revoked).toMatchObject({ code: 0, stderr: '' });
    expect(revoked.stdout).toContain(`Revoked token ${id}`);
    const after = await cli(['routines', 'list'], { OFFICE_API_TOKEN: secret });
    expect(after.code).toBe(1);
    expect(after.stderr).toMatch(/401 unauthorized: .*revoked/);
    const json = JSON.parse((await cli(['tokens', 'list', '--json'])).stdout);
    expect(json.find((t: { id: string }) => t.id === id).revoked_at).toEqual(expect.any(String));
  }, CLI_STEPS_TIMEOUT_MS);

  it('creates an admin token with --role admin, and refuses a bad role or a missing name (exit 2) and an unknown id (exit 1)', async () => {
    const admin = JSON.parse((await cli(['tokens', 'create', 'ops', '--role', 'admin', '--json'])).stdout);
    expect(admin).toMatchObject({ name: 'ops', role: 'admin', token: expect.stringMatching(/^ost_/) });
    expect((await cli(['tokens', 'list'], { OFFICE_API_TOKEN: admin.token })).code).toBe(0);

    const badRole = await cli(['tokens', 'create', 'x', '--role', 'owner']);
    expect(badRole.code).toBe(2);
    expect(badRole.stderr).toContain("--role 'owner' is not a role");
    expect((await cli(['tokens', 'create'])).stderr).toContain('tokens create needs a name');
    expect((await cli(['tokens', 'frob'])).stderr).toContain("unknown command 'tokens frob'");
    const unknown = await cli(['tokens', 'revoke', 'tok_missing']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/404 not_found: .*tok_missing/);
  }, CLI_STEPS_TIMEOUT_MS);
});

describe('office-scheduler errors', () => {
  it('exits 2 on bad usage, naming the problem', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['wakeups', 'list', '--status', 'sleepy'], /--status 'sleepy' is not a wakeup status; expected one of queued, claimed/],
      [['routines', 'frob'], /unknown command 'routines frob'/],
      [['wakeups', 'why'], /wakeups why needs a wakeup id/],
      [['routines', 'list', '--colour'], /Unknown option '--colour'/],
      [['routines', 'fire', digestId, '--var', 'novalue'], /--var expects key=value, got 'novalue'/],
      [['launch'], /unknown command 'launch'/],
    ];
    for (const [args, message] of cases) {
      const result = await cli(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    const help = await cli(['help', 'routines']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('routines fire <id> [--var key=value]…');
  });

  it('exits 3 when nothing listens at OFFICE_API_URL', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const result = await cli(['routines', 'list'], { OFFICE_API_URL: url });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(`is the scheduler running at ${url}?`);
  });

  it('sends OFFICE_API_TOKEN, and says so when the token is missing or wrong', async () => {
    const missing = await cli(['routines', 'list'], { OFFICE_API_TOKEN: undefined });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/401 unauthorized: .*\(this scheduler needs a token: set OFFICE_API_TOKEN\)/);
    const wrong = await cli(['routines', 'list'], { OFFICE_API_TOKEN: 'nope' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('(check OFFICE_API_TOKEN)');
  });
});

describe('office-scheduler serve', () => {
  it('starts the scheduler and stops it cleanly on SIGTERM', async () => {
    const dbPath = join(h.dir, 'served.db');
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: { ...process.env, OFFICE_PORT: '0', OFFICE_DB: dbPath, OFFICE_LOG_LEVEL: 'silent', OFFICE_API_TOKEN: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
        const found = /listening on (\S+)/.exec(out);
        if (found) resolve(found[1]!);
      });
      void exited.then((code) => reject(new Error(`serve exited with ${code} before listening: ${out}`)));
    });
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
