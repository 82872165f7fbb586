/**
 * Naming agents and workspaces on the command line as people know them, and finding the scheduler
 * on OFFICE_PORT: the real bin in a child process against the real server of the harness.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { fixtureAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
let acme: string;
let elsewhere: string;
let helloBot: string;
let twins: { acme: string; elsewhere: string };

function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return runCli(args, { OFFICE_API_URL: h.url, ...env });
}

async function create(path: string, body: Record<string, unknown>): Promise<string> {
  const created = await h.api('POST', path, body);
  if (created.status !== 201) throw new Error(`POST ${path} failed: ${JSON.stringify(created.body)}`);
  return created.body.id;
}

beforeAll(async () => {
  h = await startHarness();
  acme = await create('/api/office/workspaces', { name: 'Acme' });
  elsewhere = await create('/api/office/workspaces', { name: 'Elsewhere' });
  const worker = { role: 'worker', cooldown_sec: 0, executor: fixtureAgent('succeed.mjs') };
  helloBot = await create('/api/office/agents', { workspace_id: acme, name: 'Hello bot', ...worker });
  twins = {
    acme: await create('/api/office/agents', { workspace_id: acme, name: 'Twin', ...worker }),
    elsewhere: await create('/api/office/agents', { workspace_id: elsewhere, name: 'Twin', ...worker }),
  };
  await create('/api/office/routines', { workspace_id: acme, name: 'Acme standup', assignee_agent_instance_id: helloBot, triggers: [{ kind: 'manual' }] });
  await create('/api/office/routines', { workspace_id: elsewhere, name: 'Elsewhere digest', assignee_agent_instance_id: twins.elsewhere, triggers: [{ kind: 'manual' }] });
  for (const agent of [helloBot, twins.elsewhere]) await h.api('POST', `/api/office/agents/${agent}/wake`, { reason: 'from the test' });
});

afterAll(async () => {
  await h?.stop();
});

describe('office-scheduler wakeups list --agent', () => {
  it('takes an agent by its name, exactly or ignoring case, as well as by its id', async () => {
    for (const ref of ['Hello bot', 'hello BOT', helloBot]) {
      const listed = await cli(['wakeups', 'list', '--agent', ref]);
      expect(listed.stderr, ref).toBe('');
      expect(listed.code).toBe(0);
      const rows = listed.stdout.trim().split('\n').slice(1);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatch(/^wk_\S+\s+\S+ \S+\s+Hello bot\s+user\s/);
    }
  });

  it('refuses a name that several agents share, naming each with its id and workspace, until --workspace narrows it', async () => {
    const ambiguous = await cli(['wakeups', 'list', '--agent', 'Twin']);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stdout).toBe('');
    expect(ambiguous.stderr).toContain(
      `2 agents are named 'Twin': 'Twin' (${twins.acme}, workspace 'Acme'), 'Twin' (${twins.elsewhere}, workspace 'Elsewhere'). Give --agent the id, or narrow it with --workspace.`);

    const narrowed = await cli(['wakeups', 'list', '--agent', 'Twin', '--workspace', 'Elsewhere', '--json']);
    expect(narrowed.code).toBe(0);
    expect(JSON.parse(narrowed.stdout).map((w: { agent_id: string }) => w.agent_id)).toEqual([twins.elsewhere]);
  });

  it('refuses an unknown name, listing the agents there are', async () => {
    const unknown = await cli(['wakeups', 'list', '--agent', 'Nobody']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no agent is named 'Nobody' or has that id; the agents are 'Hello bot' (");
    expect(unknown.stderr).toContain(`'Twin' (${twins.elsewhere}, workspace 'Elsewhere')`);

    const notThere = await cli(['wakeups', 'list', '--agent', 'Hello bot', '--workspace', 'Elsewhere']);
    expect(notThere.code).toBe(1);
    expect(notThere.stderr).toContain(`no agent is named 'Hello bot' or has that id in workspace 'Elsewhere'; the agents are 'Twin' (${twins.elsewhere}`);
  });
});

describe('office-scheduler routines list', () => {
  it("shows each routine's workspace, and --workspace takes a name or an id", async () => {
    const all = await cli(['routines', 'list']);
    expect(all.code).toBe(0);
    const [header, ...rows] = all.stdout.trim().split('\n');
    expect(header).toMatch(/^ID\s+NAME\s+WORKSPACE\s+STATUS\s/);
    expect(rows.find((row) => row.includes('Acme standup'))).toMatch(/\sAcme standup\s+Acme\s+active\s+manual\s/);
    expect(rows.find((row) => row.includes('Elsewhere digest'))).toMatch(/\sElsewhere digest\s+Elsewhere\s+active\s+manual\s/);

    for (const ref of ['Elsewhere', elsewhere]) {
      const one = await cli(['routines', 'list', '--workspace', ref]);
      expect(one.code, ref).toBe(0);
      expect(one.stdout).toContain('Elsewhere digest');
      expect(one.stdout).not.toContain('Acme standup');
    }

    const unknown = await cli(['routines', 'list', '--workspace', 'Nowhere']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`no workspace is named 'Nowhere' or has that id; the workspaces are 'Acme' (${acme}), 'Elsewhere' (${elsewhere})`);
  });
});

describe('finding the scheduler', () => {
  it('uses OFFICE_PORT when OFFICE_API_URL is not set, and OFFICE_API_URL when both are', async () => {
    const port = new URL(h.url).port;
    const byPort = await cli(['routines', 'list'], { OFFICE_API_URL: undefined, OFFICE_PORT: port });
    expect(byPort.stderr).toBe('');
    expect(byPort.stdout).toContain('Acme standup');

    const urlWins = await cli(['routines', 'list'], { OFFICE_PORT: '1' });
    expect(urlWins.stderr).toBe('');
    expect(urlWins.stdout).toContain('Acme standup');

    const badPort = await cli(['routines', 'list'], { OFFICE_API_URL: undefined, OFFICE_PORT: 'seventy' });
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toContain("OFFICE_PORT 'seventy' is not a port number");
  });
});
