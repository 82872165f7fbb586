/** `office-scheduler agents` (list, show, create, pause, resume) and `office-scheduler wake <agent>`. */
import { AGENT_PROGRAM_KINDS } from '../../domain/agentPrograms.js';
import { CreateAgentBody, WakeAgentBody } from '../../domain/schemas.js';
import { AGENT_ROLES } from '../../domain/types.js';
import type { Schemas } from '../../client/index.js';
import { checked, emit, emitList, oneOf, parse, text, texts, usage, wholeNumber, withArgument, type Io, type Values } from '../args.js';
import { ApiClient } from '../client.js';
import type { Command } from '../command.js';
import { fields, table, time } from '../format.js';
import { resolveAgent, resolveWorkspace, workspaceNames, workspaceOption, workspaceQuery, type Agent } from '../lookup.js';

type ExecutorInput = Schemas['ExecutorSpecInput'];

/** The executor in one phrase: its kind and what it runs. */
export function executorLabel(executor: Agent['executor']): string {
  if (!executor) return 'workspace default';
  if ('command' in executor && executor.command) return `${executor.kind}: ${[executor.command, ...('args' in executor ? executor.args ?? [] : [])].join(' ')}`;
  if ('url' in executor) return `${executor.kind}: ${executor.url}`;
  if ('name' in executor) return `${executor.kind}: ${executor.name}`;
  return executor.kind;
}

async function agentsList(args: string[], io: Io): Promise<number> {
  const { values } = parse(args, { workspace: { type: 'string' } }, 0);
  const api = ApiClient.fromEnv(io.env);
  const workspace = await workspaceOption(api, values);
  const agents = await api.call(api.office.GET('/api/office/agents', { params: { query: workspaceQuery(workspace?.id) } }));
  return emitList(io, values, agents, workspace ? `No agents in workspace '${workspace.name}'.` : 'No agents.', async (list) => {
    const workspaceName = await workspaceNames(api, workspace);
    return table(['ID', 'NAME', 'WORKSPACE', 'ROLE', 'STATUS', 'ACTOR', 'EXECUTOR'], list.map((a) => [
      a.id, a.name, workspaceName.get(a.workspace_id) ?? a.workspace_id, a.role, a.status, a.actor?.state ?? '-', executorLabel(a.executor),
    ]));
  });
}

/** The agent a command's first argument names, by name or id, within --workspace when given. */
async function namedAgent(api: ApiClient, values: Values, ref: string): Promise<Agent> {
  const workspace = await workspaceOption(api, values);
  return resolveAgent(api, ref, workspace, 'the command');
}

async function agentsShow(args: string[], io: Io): Promise<number> {
  const { values, argument: ref } = withArgument(args, { workspace: { type: 'string' } }, 'agents show needs an agent: office-scheduler agents show <name|id>');
  const api = ApiClient.fromEnv(io.env);
  const found = await namedAgent(api, values, ref);
  const agent = await api.call(api.office.GET('/api/office/agents/{id}', { params: { path: { id: found.id } } }));
  return emit(io, values, agent, (a) => [
    `Agent '${a.name}' (${a.id})`,
    fields([
      ['workspace', a.workspace_id],
      ['role', a.role],
      ['status', a.paused_reason ? `${a.status} (${a.paused_reason})` : a.status],
      ['actor', a.actor ? `${a.actor.state}, ${a.actor.running} running, ${a.actor.queued} queued` : null],
      ['executor', executorLabel(a.executor)],
      ['sessions', `at most ${a.max_concurrent_sessions} at once, ${a.cooldown_sec} s cooldown`],
      ['daily caps', [a.daily_run_cap !== null && `${a.daily_run_cap} runs`, a.daily_cost_cap_usd !== null && `$${a.daily_cost_cap_usd}`].filter(Boolean).join(', ') || null],
      ['last wakeup', a.last_wakeup_finished_at ? time(a.last_wakeup_finished_at) : 'never'],
      ['warnings', a.warnings.join('; ') || null],
    ]),
  ].join('\n'));
}

/** --executor's JSON, or the executor --kind, --command, --arg and --cwd describe; none when no option gives one. */
function executorOf(values: Values): ExecutorInput | undefined {
  const json = text(values, 'executor');
  const parts = { kind: text(values, 'kind'), command: text(values, 'command'), args: texts(values, 'arg'), cwd: text(values, 'cwd') };
  if (json !== undefined) {
    if (parts.kind || parts.command || parts.args.length || parts.cwd) usage('--executor gives the whole executor: leave out --kind, --command, --arg and --cwd, or leave out --executor');
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      usage(`--executor expects a JSON object such as '{"kind":"claude_code","cwd":"/path/to/repo"}', got '${json}'`);
    }
    return parsed as ExecutorInput;
  }
  if (!parts.kind && !parts.command && !parts.args.length && !parts.cwd) return undefined;
  const kind = oneOf(values, 'kind', ['command', ...AGENT_PROGRAM_KINDS] as const, 'an executor kind') ?? 'command';
  return {
    kind, ...(parts.command ? { command: parts.command } : {}), ...(parts.args.length ? { args: parts.args } : {}), ...(parts.cwd ? { cwd: parts.cwd } : {}),
  } as ExecutorInput;
}

const AGENT_OPTIONS: Record<string, string> = {
  name: '<name>', workspace_id: '--workspace', role: '--role', executor: 'the executor', cooldown_sec: '--cooldown', max_concurrent_sessions: '--max-sessions',
};

async function agentsCreate(args: string[], io: Io): Promise<number> {
  const { values, argument: name } = withArgument(args, {
    workspace: { type: 'string' }, role: { type: 'string' }, executor: { type: 'string' }, kind: { type: 'string' }, command: { type: 'string' },
    arg: { type: 'string', multiple: true }, cwd: { type: 'string' }, cooldown: { type: 'string' }, 'max-sessions': { type: 'string' },
  }, 'agents create needs a name: office-scheduler agents create <name> --workspace <name|id> [options]');
  const workspaceRef = text(values, 'workspace') ?? usage('agents create needs --workspace <name|id>: the workspace the agent works in');
  const role = oneOf(values, 'role', AGENT_ROLES, 'a role') ?? 'worker';
  const executor = executorOf(values);
  const cooldown = wholeNumber(values, 'cooldown');
  const maxSessions = wholeNumber(values, 'max-sessions', 1);
  const body = {
    workspace_id: workspaceRef, name, role,
    ...(executor ? { executor } : {}), ...(cooldown !== undefined ? { cooldown_sec: cooldown } : {}), ...(maxSessions !== undefined ? { max_concurrent_sessions: maxSessions } : {}),
  };
  checked(CreateAgentBody, body, AGENT_OPTIONS);
  const api = ApiClient.fromEnv(io.env);
  const workspace = await resolveWorkspace(api, workspaceRef);
  const agent = await api.call(api.office.POST('/api/office/agents', { body: { ...body, workspace_id: workspace.id } }));
  return emit(io, values, agent, (a) => `Created ${a.role} '${a.name}' (${a.id}) in workspace '${workspace.name}', executor ${executorLabel(a.executor)}.`);
}

/** Pausing and resuming are a PATCH of the agent's status alone, which a member may make. */
function setStatus(status: 'paused' | 'idle', done: string) {
  return async (args: string[], io: Io): Promise<number> => {
    const form = status === 'paused' ? 'pause' : 'resume';
    const { values, argument: ref } = withArgument(args, { workspace: { type: 'string' } }, `agents ${form} needs an agent: office-scheduler agents ${form} <name|id>`);
    const api = ApiClient.fromEnv(io.env);
    const found = await namedAgent(api, values, ref);
    const agent = await api.call(api.office.PATCH('/api/office/agents/{id}', { params: { path: { id: found.id } }, body: { status } }));
    return emit(io, values, agent, (a) => `${done} '${a.name}' (${a.id}): it is ${a.status}.`);
  };
}

async function wake(args: string[], io: Io): Promise<number> {
  const { values, argument: ref } = withArgument(args, { workspace: { type: 'string' }, reason: { type: 'string' }, 'idempotency-key': { type: 'string' } }, 'wake needs an agent: office-scheduler wake <name|id> [--reason <text>]');
  const key = text(values, 'idempotency-key');
  const body = { ...(values.reason !== undefined ? { reason: text(values, 'reason') } : {}), ...(key !== undefined ? { idempotency_key: key } : {}) };
  checked(WakeAgentBody, body, { reason: '--reason', idempotency_key: '--idempotency-key' });
  const api = ApiClient.fromEnv(io.env);
  const agent = await namedAgent(api, values, ref);
  const woken = await api.call(api.office.POST('/api/office/agents/{id}/wake', { params: { path: { id: agent.id } }, body }));
  return emit(io, values, woken, (w) => `Woke '${agent.name}': wakeup ${w.wakeup.id} is ${w.wakeup.status} (${w.outcome}); office-scheduler wakeups why ${w.wakeup.id} follows it.`);
}

const NAMING = 'An agent is named by its name (quoted if it has spaces) or its id; --workspace narrows a name that several workspaces use.';

export const agents: Command = {
  name: 'agents',
  summary: 'Agents: list, read, create, pause and resume them',
  forms: {
    list: { synopsis: 'list [--workspace <name|id>]', does: 'the agents with their workspace, role, status, actor state and executor', run: agentsList },
    show: { synopsis: 'show <name|id> [--workspace <name|id>]', does: 'one agent: its status, live actor, executor, limits and warnings', run: agentsShow },
    create: {
      synopsis: 'create <name> --workspace <name|id> [--role <role>] [--kind <kind>] [--command <program>] [--arg <arg>]… [--cwd <dir>] [--executor <json>] [--cooldown <sec>] [--max-sessions <n>]',
      does: 'create an agent (admin only)',
      run: agentsCreate,
    },
    pause: { synopsis: 'pause <name|id> [--workspace <name|id>]', does: 'pause an agent: its wakeups end without a run until it is resumed', run: setStatus('paused', 'Paused') },
    resume: { synopsis: 'resume <name|id> [--workspace <name|id>]', does: 'resume a paused agent', run: setStatus('idle', 'Resumed') },
  },
  notes: [
    NAMING,
    `--role is one of ${AGENT_ROLES.join(', ')} (default worker). --kind is command or one of ${AGENT_PROGRAM_KINDS.join(', ')}`,
    '(default command); --arg is repeated, one argument each (--arg=--verbose for one that starts with a dash).',
    '--executor gives the whole executor as JSON instead, e.g. \'{"kind":"claude_code","cwd":"/path/to/repo"}\'.',
  ].join('\n'),
};

export const wakeCommand: Command = {
  name: 'wake',
  summary: 'Wake an agent now',
  forms: {
    '': { synopsis: '<name|id> [--workspace <name|id>] [--reason <text>] [--idempotency-key <key>]', does: 'ask for a wakeup of the agent; prints the wakeup and where it is', run: wake },
  },
  notes: `${NAMING}\nA repeat with the same --idempotency-key inside the idempotency window answers with the first wakeup.`,
};
