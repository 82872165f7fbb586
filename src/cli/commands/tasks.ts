/** `office-scheduler tasks`: list, show, create, move and comment on the tasks of the board. */
import { CreateCommentBody, CreateTaskBody, MoveTaskBody } from '../../domain/schemas.js';
import { TASK_STATES, type TaskState } from '../../domain/types.js';
import { checked, emit, emitList, parse, text, texts, usage, wholeNumber, withArgument, type Io } from '../args.js';
import { ApiClient } from '../client.js';
import type { Command } from '../command.js';
import { fields, table, time } from '../format.js';
import { agentNames, agentOption, resolveAgent, workspaceOption, resolveWorkspace } from '../lookup.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from './wakeups.js';

/** `done`, `in-progress`, `In review`: a state as people type it, or a usage error listing the states. */
export function taskState(raw: string, where: string): TaskState {
  const state = raw.trim().toUpperCase().replace(/[\s-]+/g, '_');
  if (!(TASK_STATES as readonly string[]).includes(state)) usage(`${where} '${raw}' is not a task state; expected one of ${TASK_STATES.join(', ')}`);
  return state as TaskState;
}

async function tasksList(args: string[], io: Io): Promise<number> {
  const { values } = parse(args, {
    workspace: { type: 'string' }, state: { type: 'string' }, assignee: { type: 'string' }, parent: { type: 'string' }, routine: { type: 'boolean' }, limit: { type: 'string' },
  }, 0);
  const stateRef = text(values, 'state');
  const state = stateRef === undefined ? undefined : taskState(stateRef, '--state');
  const limit = wholeNumber(values, 'limit', 1, MAX_LIMIT) ?? DEFAULT_LIMIT;
  const api = ApiClient.fromEnv(io.env);
  const workspace = await workspaceOption(api, values);
  const assignee = await agentOption(api, values, workspace, 'assignee');
  const tasks = await api.call(api.office.GET('/api/office/tasks', {
    params: { query: { workspace_id: workspace?.id, assignee: assignee?.id, state, parent_id: text(values, 'parent'), limit, ...(values.routine ? { include_routine: 'true' as const } : {}) } },
  }));
  return emitList(io, values, tasks, 'No tasks.', async (list) => {
    const names = await agentNames(api, workspace?.id);
    return table(['ID', 'STATE', 'TITLE', 'ASSIGNEE', 'BLOCKED BY', 'UPDATED'], list.map((t) => [
      t.id, t.state, t.title, t.assignee_agent_instance_id ? names.get(t.assignee_agent_instance_id) ?? t.assignee_agent_instance_id : '-',
      t.blocked_by.join(', ') || '-', time(t.updated_at),
    ]));
  });
}

async function tasksShow(args: string[], io: Io): Promise<number> {
  const { values, argument: id } = withArgument(args, {}, 'tasks show needs a task id: office-scheduler tasks show <id>');
  const api = ApiClient.fromEnv(io.env);
  const path = { params: { path: { id } } };
  const task = await api.call(api.office.GET('/api/office/tasks/{id}', path));
  const comments = await api.call(api.office.GET('/api/office/tasks/{id}/comments', path));
  const names = await agentNames(api, task.workspace_id);
  const who = (id: string | null) => (id ? names.get(id) ?? id : null);
  return emit(io, values, { ...task, comments }, (t) => [
    `Task ${t.id}: ${t.title}`,
    fields([
      ['state', t.state],
      ['assignee', who(t.assignee_agent_instance_id) ?? 'nobody'],
      ['checked out by', who(t.checkout_agent_id)],
      ['parent', t.parent_id],
      ['blocked by', t.blocked_by.join(', ')],
      ['approval', t.requires_approval ? 'required before DONE' : null],
      ['origin', t.origin_id ? `${t.origin} ${t.origin_id}` : t.origin],
      ['created', time(t.created_at)],
      ['updated', time(t.updated_at)],
    ]),
    ...(t.description ? ['', t.description] : []),
    '',
    t.comments.length === 0 ? 'No comments.' : `Comments (${t.comments.length}):`,
    ...t.comments.map((c) => `  ${time(c.created_at)}  ${c.author_type === 'agent' ? who(c.author_id) : c.author_id}: ${c.body.replace(/\s+/g, ' ')}`),
  ].join('\n'));
}

const TASK_OPTIONS: Record<string, string> = {
  title: '<title>', workspace_id: '--workspace', description: '--description', assignee_agent_instance_id: '--assignee', parent_id: '--parent', blocked_by: '--blocked-by',
};

async function tasksCreate(args: string[], io: Io): Promise<number> {
  const { values, argument: title } = withArgument(args, {
    workspace: { type: 'string' }, description: { type: 'string' }, assignee: { type: 'string' }, parent: { type: 'string' },
    'blocked-by': { type: 'string', multiple: true }, 'requires-approval': { type: 'boolean' },
  }, 'tasks create needs a title: office-scheduler tasks create <title> --workspace <name|id> [options]');
  const workspaceRef = text(values, 'workspace') ?? usage('tasks create needs --workspace <name|id>: the workspace whose board gets the task');
  const blockedBy = texts(values, 'blocked-by');
  const body = {
    workspace_id: workspaceRef, title,
    ...optional('description', text(values, 'description')), ...optional('parent_id', text(values, 'parent')),
    ...(blockedBy.length ? { blocked_by: blockedBy } : {}), ...(values['requires-approval'] ? { requires_approval: true } : {}),
  };
  checked(CreateTaskBody, body, TASK_OPTIONS);
  const api = ApiClient.fromEnv(io.env);
  const workspace = await resolveWorkspace(api, workspaceRef);
  const assigneeRef = text(values, 'assignee');
  const assignee = assigneeRef === undefined ? undefined : await resolveAgent(api, assigneeRef, workspace, '--assignee');
  const task = await api.call(api.office.POST('/api/office/tasks', {
    body: { ...body, workspace_id: workspace.id, ...(assignee ? { assignee_agent_instance_id: assignee.id } : {}) },
  }));
  return emit(io, values, task, (t) => `Created task ${t.id} '${t.title}' in workspace '${workspace.name}': ${t.state}${assignee ? `, assigned to '${assignee.name}', who is woken for it` : ''}.`);
}

async function tasksMove(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, { note: { type: 'string' } }, 2);
  const [id, stateRef] = positionals;
  if (id === undefined || stateRef === undefined) usage(`tasks move needs a task id and a state: office-scheduler tasks move <id> <state>, the state one of ${TASK_STATES.join(', ')}`);
  const body = { state: taskState(stateRef, 'the state'), ...optional('note', text(values, 'note')) };
  checked(MoveTaskBody, body, { note: '--note' });
  const api = ApiClient.fromEnv(io.env);
  const task = await api.call(api.office.POST('/api/office/tasks/{id}/move', { params: { path: { id } }, body }));
  return emit(io, values, task, (t) => `Moved task ${t.id} '${t.title}' to ${t.state}.`);
}

async function tasksComment(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, {}, Number.MAX_SAFE_INTEGER);
  const [id, ...words] = positionals;
  if (id === undefined || words.length === 0) usage('tasks comment needs a task id and the comment: office-scheduler tasks comment <id> <text>');
  const body = { body: words.join(' ') };
  checked(CreateCommentBody, body, { body: 'the comment' });
  const api = ApiClient.fromEnv(io.env);
  const comment = await api.call(api.office.POST('/api/office/tasks/{id}/comments', { params: { path: { id } }, body }));
  return emit(io, values, comment, (c) => `Commented on task ${c.task_id} (${c.id}); its assignee is woken to read it.`);
}

/** `{ [key]: value }` when the option was given, else nothing: an absent option leaves the field out of the body. */
function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}

export const tasks: Command = {
  name: 'tasks',
  summary: 'Tasks on the board: list, read, create, move and comment',
  forms: {
    list: {
      synopsis: 'list [--workspace <name|id>] [--state <state>] [--assignee <name|id>] [--parent <id>] [--routine] [--limit <n>]',
      does: 'tasks, most recently changed first, with their state, assignee and blockers',
      run: tasksList,
    },
    show: { synopsis: 'show <id>', does: 'one task with its description, blockers and comments', run: tasksShow },
    create: {
      synopsis: 'create <title> --workspace <name|id> [--description <text>] [--assignee <name|id>] [--parent <id>] [--blocked-by <id>]… [--requires-approval]',
      does: 'create a task; an assignee is woken for it',
      run: tasksCreate,
    },
    move: { synopsis: 'move <id> <state> [--note <text>]', does: 'move a task to another column, under the board\'s rules and approvals', run: tasksMove },
    comment: { synopsis: 'comment <id> <text>', does: 'comment on a task as you (the token\'s name)', run: tasksComment },
  },
  notes: [
    `A state is one of ${TASK_STATES.join(', ')}, in any case, with - or a space for _ (in-progress).`,
    `--routine lists routine tasks too; --limit is 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT}).`,
  ].join('\n'),
};
