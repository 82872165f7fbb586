/**
 * `office-scheduler`: a small command line for the HTTP API (bin/office-scheduler.mjs runs it).
 * It reads OFFICE_API_URL (else http://127.0.0.1:$OFFICE_PORT, default port 7700) and OFFICE_API_TOKEN, prints plain
 * tables (or `--json`), and exits 0 on success, 1 when the API refuses, 2 on bad usage and 3 when
 * no scheduler answers.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { WAKEUP_STATUSES } from '../domain/types.js';
import { ApiClient, CliError, EXIT } from './client.js';
import { DEMO, seedDemo } from './demo.js';
import { table, time } from './format.js';
import { listAgents, resolveAgent, resolveWorkspace, workspaceNames, workspaceQuery, type Workspace } from './lookup.js';
import { startServer } from './server.js';
import { mcpStdio } from './mcp.js';

export const USAGE = `Usage: office-scheduler <command> [options]

Commands:
  serve                                  start the scheduler (builds the dashboard first if needed)
  demo                                   start the scheduler with a demo workspace (database ./data/demo.db)
  routines list [--workspace <name|id>]  routines with their workspace, triggers, next fire and last run
  routines fire <id> [--var key=value]…  fire a routine now; --var sets a template variable
  wakeups list [--workspace <name|id>] [--agent <name|id>] [--status <status>] [--source <source>] [--limit <n>]
                                         wakeups, newest first, each with why it is where it is
  wakeups why <id>                       why a wakeup did (or did not) wake its agent, in one sentence
  tokens create <name> [--role member|admin]
                                         create a named API token (admin only); its secret is printed once
  tokens list                            the API tokens, revoked ones too, without secrets (admin only)
  tokens revoke <id>                     revoke a token: it gets 401s, and its routines pause (admin only)
  mcp                                    the agents' MCP server over stdio, inside an agent's run (OFFICE_RUN_TOKEN)
  help                                   this text

Options: --json prints the API's JSON instead of a table. Agents and workspaces are named by name
(quoted if it has spaces: --agent "Hello bot") or by id.
Environment: OFFICE_API_URL (default http://127.0.0.1:7700; without it, OFFICE_PORT sets the port), OFFICE_API_TOKEN.
Exit codes: 0 ok, 1 the API refused the request or a name matches no one or several, 2 bad usage, 3 cannot connect.`;

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  env: NodeJS.ProcessEnv;
}

const defaultIo: Io = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  env: process.env,
};

export async function main(argv: string[], io: Io = defaultIo): Promise<number> {
  try {
    return await run(argv, io);
  } catch (error) {
    if (error instanceof CliError) {
      io.err(`office-scheduler: ${error.message}`);
      if (error.exitCode === EXIT.usage) io.err('Run `office-scheduler help` for usage.');
      return error.exitCode;
    }
    io.err(`office-scheduler: unexpected error: ${error instanceof Error ? error.stack : String(error)}`);
    return EXIT.api;
  }
}

function usage(message: string): never {
  throw new CliError(message, EXIT.usage);
}

type Values = Record<string, string | boolean | string[] | undefined>;

function parse(args: string[], options: ParseArgsConfig['options'], positionals: number): { values: Values; positionals: string[] } {
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args, options: { ...options, json: { type: 'boolean' } }, allowPositionals: true, strict: true });
  } catch (error) {
    usage((error as Error).message);
  }
  if (parsed.positionals.length > positionals) usage(`unexpected argument '${parsed.positionals[positionals]}'`);
  return parsed;
}

async function run(argv: string[], io: Io): Promise<number> {
  const [command, sub, ...rest] = argv;
  switch (command) {
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      io.out(USAGE);
      return command === undefined ? EXIT.usage : EXIT.ok;
    case 'serve':
      parse(argv.slice(1), {}, 0);
      return serve(io);
    case 'demo':
      parse(argv.slice(1), {}, 0);
      return demo(io);
    case 'routines':
      if (sub === 'list') return routinesList(rest, io);
      if (sub === 'fire') return routinesFire(rest, io);
      return usage(sub ? `unknown command 'routines ${sub}'; expected 'routines list' or 'routines fire <id>'` : "'routines' needs a subcommand: list or fire");
    case 'wakeups':
      if (sub === 'list') return wakeupsList(rest, io);
      if (sub === 'why') return wakeupsWhy(rest, io);
      return usage(sub ? `unknown command 'wakeups ${sub}'; expected 'wakeups list' or 'wakeups why <id>'` : "'wakeups' needs a subcommand: list or why");
    case 'mcp':
      parse(argv.slice(1), {}, 0);
      return mcpStdio(io.env);
    case 'tokens':
      if (sub === 'create') return tokensCreate(rest, io);
      if (sub === 'list') return tokensList(rest, io);
      if (sub === 'revoke') return tokensRevoke(rest, io);
      return usage(sub ? `unknown command 'tokens ${sub}'; expected 'tokens create <name>', 'tokens list' or 'tokens revoke <id>'` : "'tokens' needs a subcommand: create, list or revoke");
    default:
      return usage(`unknown command '${command}'`);
  }
}

interface Trigger { kind: string; cron_expression: string | null; next_run_at: string | null; enabled: boolean }
interface Routine {
  id: string; name: string; workspace_id: string; status: string; assignee_agent_instance_id: string; triggers: Trigger[];
  last_run: { status: string; started_at: string } | null;
}

async function agentNames(api: ApiClient, workspaceId?: string): Promise<Map<string, string>> {
  return new Map((await listAgents(api, workspaceId)).map((a) => [a.id, a.name]));
}

/** The workspace that `--workspace` names, if given. */
async function workspaceOption(api: ApiClient, values: Values): Promise<Workspace | undefined> {
  const ref = values.workspace as string | undefined;
  return ref === undefined ? undefined : resolveWorkspace(api, ref);
}

async function routinesList(args: string[], io: Io): Promise<number> {
  const { values } = parse(args, { workspace: { type: 'string' } }, 0);
  const api = ApiClient.fromEnv(io.env);
  const workspace = await workspaceOption(api, values);
  const routines = await api.get<Routine[]>(`/api/office/routines${workspaceQuery(workspace?.id)}`);
  if (values.json) {
    io.out(JSON.stringify(routines, null, 2));
    return EXIT.ok;
  }
  if (routines.length === 0) {
    io.out(workspace ? `No routines in workspace '${workspace.name}'.` : 'No routines.');
    return EXIT.ok;
  }
  const [names, workspaceName] = await Promise.all([agentNames(api, workspace?.id), workspaceNames(api, workspace)]);
  io.out(table(['ID', 'NAME', 'WORKSPACE', 'STATUS', 'TRIGGER', 'CRON', 'NEXT FIRE', 'LAST RUN', 'ASSIGNEE'], routines.map((r) => {
    const next = r.triggers.filter((t) => t.enabled && t.next_run_at).map((t) => t.next_run_at!).sort()[0];
    return [
      r.id, r.name, workspaceName.get(r.workspace_id) ?? r.workspace_id, r.status,
      [...new Set(r.triggers.map((t) => t.kind))].join(',') || 'none',
      r.triggers.filter((t) => t.kind === 'schedule').map((t) => t.cron_expression).join('; ') || '-',
      r.status === 'active' ? time(next) : '-',
      r.last_run ? `${r.last_run.status} ${time(r.last_run.started_at)}` : 'never',
      names.get(r.assignee_agent_instance_id) ?? r.assignee_agent_instance_id,
    ];
  })));
  return EXIT.ok;
}

/** `--var a=1 --var b=x`: values are strings; the API coerces them to each variable's declared type. */
function parseVars(vars: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of vars) {
    const eq = pair.indexOf('=');
    if (eq <= 0) usage(`--var expects key=value, got '${pair}'`);
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

async function routinesFire(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, { var: { type: 'string', multiple: true } }, 1);
  const id = positionals[0] ?? usage('routines fire needs a routine id: office-scheduler routines fire <id> [--var key=value]');
  const variables = parseVars((values.var as string[] | undefined) ?? []);
  const api = ApiClient.fromEnv(io.env);
  const result = await api.post<{ routine_run: { id: string; status: string; linked_task_id: string | null; linked_wakeup_id: string | null; skip_reason: string | null } }>(
    `/api/office/routines/${encodeURIComponent(id)}/fire`, { variables });
  const run = result.routine_run;
  if (values.json) io.out(JSON.stringify(result, null, 2));
  else {
    const extra = [run.linked_task_id && `task ${run.linked_task_id}`, run.linked_wakeup_id && `wakeup ${run.linked_wakeup_id}`, run.skip_reason && `(${run.skip_reason})`].filter(Boolean).join(', ');
    io.out(`Fired routine ${id}: routine run ${run.id} is ${run.status}${extra ? `; ${extra}` : ''}`);
  }
  return EXIT.ok;
}

interface Wakeup { id: string; agent_id: string; source: string; status: string; cancel_reason: string | null; requested_at: string; explain: string }

async function wakeupsList(args: string[], io: Io): Promise<number> {
  const { values } = parse(args, {
    workspace: { type: 'string' }, agent: { type: 'string' }, status: { type: 'string' }, source: { type: 'string' }, limit: { type: 'string' },
  }, 0);
  const status = values.status as string | undefined;
  if (status && !(WAKEUP_STATUSES as readonly string[]).includes(status)) usage(`--status '${status}' is not a wakeup status; expected one of ${WAKEUP_STATUSES.join(', ')}`);
  const limit = values.limit as string | undefined;
  if (limit !== undefined && !/^\d+$/.test(limit)) usage(`--limit expects a whole number, got '${limit}'`);
  const api = ApiClient.fromEnv(io.env);
  const workspace = await workspaceOption(api, values);
  const agent = values.agent === undefined ? undefined : await resolveAgent(api, values.agent as string, workspace);
  const query = new URLSearchParams();
  if (workspace) query.set('workspace_id', workspace.id);
  if (agent) query.set('agent_id', agent.id);
  if (status) query.set('status', status);
  if (values.source) query.set('source', values.source as string);
  query.set('limit', limit ?? '50');
  const wakeups = await api.get<Wakeup[]>(`/api/office/wakeups?${query}`);
  if (values.json) {
    io.out(JSON.stringify(wakeups, null, 2));
    return EXIT.ok;
  }
  if (wakeups.length === 0) {
    io.out('No wakeups.');
    return EXIT.ok;
  }
  const names = await agentNames(api, workspace?.id);
  io.out(table(['ID', 'REQUESTED', 'AGENT', 'SOURCE', 'STATUS', 'WHY'], wakeups.map((w) => [
    w.id, time(w.requested_at), names.get(w.agent_id) ?? w.agent_id, w.source, w.cancel_reason ? `${w.status} (${w.cancel_reason})` : w.status, w.explain,
  ]), 90));
  return EXIT.ok;
}

async function wakeupsWhy(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, {}, 1);
  const id = positionals[0] ?? usage('wakeups why needs a wakeup id: office-scheduler wakeups why <id>');
  const wakeup = await ApiClient.fromEnv(io.env).get<Wakeup>(`/api/office/wakeups/${encodeURIComponent(id)}`);
  io.out(values.json ? JSON.stringify({ id: wakeup.id, status: wakeup.status, explain: wakeup.explain }, null, 2) : wakeup.explain);
  return EXIT.ok;
}

interface ApiToken { id: string; name: string; role: string; created_at: string; revoked_at: string | null }

const TOKEN_ROLES = ['member', 'admin'];

async function tokensCreate(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, { role: { type: 'string' } }, 1);
  const name = positionals[0] ?? usage('tokens create needs a name: office-scheduler tokens create <name> [--role member|admin]');
  const role = (values.role as string | undefined) ?? 'member';
  if (!TOKEN_ROLES.includes(role)) usage(`--role '${role}' is not a role; expected member or admin`);
  const created = await ApiClient.fromEnv(io.env).post<ApiToken & { token: string }>('/api/office/tokens', { name, role });
  if (values.json) io.out(JSON.stringify(created, null, 2));
  else io.out(`Created ${created.role} token '${created.name}' (${created.id}). Its secret is shown only now; keep it:\n${created.token}`);
  return EXIT.ok;
}

async function tokensList(args: string[], io: Io): Promise<number> {
  const { values } = parse(args, {}, 0);
  const tokens = await ApiClient.fromEnv(io.env).get<ApiToken[]>('/api/office/tokens');
  if (values.json) io.out(JSON.stringify(tokens, null, 2));
  else if (tokens.length === 0) io.out('No tokens (only OFFICE_API_TOKEN).');
  else io.out(table(['ID', 'NAME', 'ROLE', 'CREATED', 'REVOKED'], tokens.map((t) => [t.id, t.name, t.role, time(t.created_at), t.revoked_at ? time(t.revoked_at) : '-'])));
  return EXIT.ok;
}

async function tokensRevoke(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, {}, 1);
  const id = positionals[0] ?? usage('tokens revoke needs a token id: office-scheduler tokens revoke <id> (see tokens list)');
  await ApiClient.fromEnv(io.env).delete(`/api/office/tokens/${encodeURIComponent(id)}`);
  if (values.json) io.out(JSON.stringify({ id, revoked: true }));
  else io.out(`Revoked token ${id}: it is refused from now on, and its active routines are paused until an admin gives them a new owner.`);
  return EXIT.ok;
}

async function serve(io: Io): Promise<number> {
  const server = await startServer(io.env, io.err);
  return server.exited;
}

async function demo(io: Io): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...io.env, OFFICE_DB: io.env.OFFICE_DB || './data/demo.db', OFFICE_LOG_LEVEL: io.env.OFFICE_LOG_LEVEL || 'warn' };
  const server = await startServer(env, io.err);
  let url: string;
  try {
    url = await server.url;
  } catch {
    return server.exited;
  }
  try {
    const ids = await seedDemo(new ApiClient(url, env.OFFICE_API_TOKEN || undefined));
    io.out([
      '',
      `Demo ready${ids.created.length ? ` (created ${ids.created.join(', ')})` : ' (reusing the demo workspace)'}.`,
      // The link names the workspace: the dashboard would otherwise open the first one, or the last one chosen there.
      `  Dashboard: ${url}/office/tasks?workspace=${ids.workspaceId}`,
      `  '${DEMO.ticker}' wakes ${DEMO.worker} every 10 seconds; watch ${url}/office/agents/${ids.workerId}`,
      `  '${DEMO.ask}' asks for a question when you press Run now.`,
      '  The board has a task in every column: the worker does two of them, and one then waits for your approval in the Inbox.',
      '  Ctrl-C stops the scheduler; the next `npm run demo` picks up where this one left off.',
      '',
    ].join('\n'));
  } catch (error) {
    io.err(`office-scheduler: demo setup failed: ${error instanceof Error ? error.message : String(error)}`);
    server.child.kill('SIGTERM');
    await server.exited;
    return error instanceof CliError ? error.exitCode : EXIT.api;
  }
  return server.exited;
}
