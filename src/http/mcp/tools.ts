/**
 * The MCP tools an agent gets during its run: its task, comments, moves, subtasks and a wake for
 * later. Every tool is one or a few calls of the HTTP API with the run's own token, so a tool can do
 * exactly what the run token may (API.md, "Run token"): the scope, the validation and the rules are
 * the API's, in one place. A refused call is a tool error (isError) that says why, and changed nothing.
 *
 * The same tools serve both transports: `/mcp` (api.ts calls the app in process) and
 * `office-scheduler mcp` over stdio (it calls OFFICE_API_URL).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { OFFICE_MCP_SERVER } from '../../domain/agentPrograms.js';
import { Id, MoveTaskBody, WakeDelaySec } from '../../domain/schemas.js';
import { TERMINAL_TASK_STATES, type TaskState } from '../../domain/types.js';

/** One call of the HTTP API as the run: the answer's status and parsed body. */
export interface OfficeApi {
  call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
}

/** Who the token is: its run, agent, workspace and task (null for a taskless run). */
export interface RunIdentity {
  runId: string;
  agentId: string;
  workspaceId: string;
  taskId: string | null;
}

/** A refusal or a bad request, as the agent reads it: the status and the API's own reason. */
export class ApiRefusal extends Error {}

function refusalOf(status: number, body: unknown): ApiRefusal {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  const reason = typeof error?.message === 'string' ? error.message : JSON.stringify(body);
  return new ApiRefusal(`refused with HTTP ${status}${typeof error?.code === 'string' ? ` (${error.code})` : ''}: ${reason}`);
}

async function expectOk(api: OfficeApi, method: 'GET' | 'POST', path: string, body?: unknown): Promise<any> {
  const answer = await api.call(method, path, body);
  if (answer.status >= 300) throw refusalOf(answer.status, answer.body);
  return answer.body;
}

const text = (value: unknown): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] });

/** A tool's work; an API refusal becomes the tool error the agent reads, anything else is a fault. */
async function answer(work: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    return text(await work());
  } catch (error) {
    if (error instanceof ApiRefusal) return { isError: true, content: [{ type: 'text', text: error.message }] };
    throw error;
  }
}

const path = (template: string, id: string) => template.replace(':id', encodeURIComponent(id));

const TaskIdArg = Id.optional().describe('The task\'s id. Leave it out for the task this run is working on.');

export function createOfficeMcpServer(api: OfficeApi, me: RunIdentity): McpServer {
  const server = new McpServer({ name: OFFICE_MCP_SERVER, version: '1' }, {
    instructions: 'Tools for your work in Office Scheduler, acting as your agent for as long as this run lasts. '
      + (me.taskId ? `This run works on task ${me.taskId}; tools that take task_id default to it.` : 'This run has no task of its own: pass task_id.'),
  });

  const taskOf = (taskId: string | undefined): string => {
    const id = taskId ?? me.taskId;
    if (id === null) throw new ApiRefusal('this run has no task of its own: pass task_id');
    return id;
  };

  server.registerTool('read_my_task', {
    title: 'Read my task',
    description: 'Read a task (by default the one this run works on): its title, description, state and assignee, '
      + 'its comments oldest first, and the tasks that block it with their states. A blocker is resolved once it is DONE or CANCELLED.',
    inputSchema: { task_id: TaskIdArg },
    annotations: { readOnlyHint: true },
  }, ({ task_id }) => answer(async () => {
    const id = taskOf(task_id);
    const task = await expectOk(api, 'GET', path('/api/office/tasks/:id', id));
    const comments = await expectOk(api, 'GET', path('/api/office/tasks/:id/comments', id));
    const blockers = await Promise.all((task.blocked_by as string[]).map(async (blockerId) => {
      const blocker = await expectOk(api, 'GET', path('/api/office/tasks/:id', blockerId));
      return { id: blocker.id, title: blocker.title, state: blocker.state };
    }));
    return { task, comments, blockers };
  }));

  server.registerTool('comment', {
    title: 'Comment on a task',
    description: 'Add a comment, as your agent, to a task of your workspace (by default the one this run works on). '
      + 'Use it to report progress, ask a question or hand over; people and the task\'s other agents read it.',
    inputSchema: { body: z.string().trim().min(1).max(100_000).describe('The comment, in Markdown.'), task_id: TaskIdArg },
  }, ({ body, task_id }) => answer(() => expectOk(api, 'POST', path('/api/office/tasks/:id/comments', taskOf(task_id)), { body })));

  server.registerTool('move_my_task', {
    title: 'Move my task',
    description: 'Move a task assigned to you to another state on the board: TODO, IN_PROGRESS, IN_REVIEW, DONE, CANCELLED, BLOCKED or ARCHIVED. '
      + 'Moving a task that requires approval to DONE puts it in IN_REVIEW and asks a person to approve it; it reaches DONE once they do. '
      + 'Only your own tasks can be moved.',
    inputSchema: { state: MoveTaskBody.shape.state, note: MoveTaskBody.shape.note.describe('Why, for the task\'s history.'), task_id: TaskIdArg },
  }, ({ state, note, task_id }) => answer(() =>
    expectOk(api, 'POST', path('/api/office/tasks/:id/move', taskOf(task_id)), { state, ...(note !== undefined ? { note } : {}) })));

  server.registerTool('create_subtask', {
    title: 'Create a subtask',
    description: 'Split work off a task (by default the one this run works on) into a subtask in your workspace, optionally assigned to an agent, '
      + 'which is then woken for it. When the last subtask of a task ends, the task\'s assignee is woken.',
    inputSchema: {
      title: z.string().trim().min(1).max(500).describe('A short title that says what is to be done.'),
      description: z.string().max(100_000).optional().describe('What done looks like, and what the assignee needs to know.'),
      assignee_agent_instance_id: Id.optional().describe('The agent to do it (an agent id of your workspace); leave it out to leave it unassigned.'),
      parent_id: TaskIdArg,
    },
  }, ({ title, description, assignee_agent_instance_id, parent_id }) => answer(() => expectOk(api, 'POST', '/api/office/tasks', {
    workspace_id: me.workspaceId, parent_id: taskOf(parent_id), title,
    ...(description !== undefined ? { description } : {}),
    ...(assignee_agent_instance_id !== undefined ? { assignee_agent_instance_id } : {}),
  })));

  server.registerTool('self_wake', {
    title: 'Wake me later',
    description: 'Ask to be woken again later, for example to check on something slow (a CI run, a reply). Give delay_sec (seconds from now, '
      + 'at most 30 days) or at (an ISO-8601 time within 30 days), or neither to be woken as soon as this run ends. '
      + 'The new run gets the reason in its prompt. It answers with the wakeup; its available_at is when it may run.',
    inputSchema: {
      reason: z.string().trim().min(1).max(2000).describe('What to do when woken: the next run reads it.'),
      delay_sec: WakeDelaySec.optional().describe('Seconds from now.'),
      at: z.iso.datetime({ offset: true }).optional().describe('An ISO-8601 time, such as 2026-05-01T09:00:00Z.'),
    },
  }, ({ reason, delay_sec, at }) => answer(() => expectOk(api, 'POST', path('/api/office/agents/:id/wake', me.agentId), {
    reason, ...(delay_sec !== undefined ? { delay_sec } : {}), ...(at !== undefined ? { at } : {}),
  })));

  server.registerTool('list_open_tasks', {
    title: 'List my workspace\'s open tasks',
    description: 'List the tasks of your workspace that are not DONE, CANCELLED or ARCHIVED: id, title, state, assignee, parent and blockers. '
      + 'mine=true keeps only the tasks assigned to you.',
    inputSchema: { mine: z.boolean().optional().describe('Only the tasks assigned to you.') },
    annotations: { readOnlyHint: true },
  }, ({ mine }) => answer(async () => {
    const query = new URLSearchParams({ workspace_id: me.workspaceId, limit: '1000', ...(mine ? { assignee: me.agentId } : {}) });
    const tasks = await expectOk(api, 'GET', `/api/office/tasks?${query}`) as Array<Record<string, unknown>>;
    return tasks.filter((task) => !TERMINAL_TASK_STATES.includes(task.state as TaskState)).map((task) => ({
      id: task.id, title: task.title, state: task.state, assignee_agent_instance_id: task.assignee_agent_instance_id,
      parent_id: task.parent_id, blocked_by: task.blocked_by,
    }));
  }));

  return server;
}

/** Who a run token is, from its run (which a run token may read): for a transport that knows only the token and the run's id. */
export async function identityOfRun(api: OfficeApi, runId: string): Promise<RunIdentity> {
  const run = await expectOk(api, 'GET', path('/api/office/runs/:id', runId));
  return { runId: run.id, agentId: run.agent_id, workspaceId: run.workspace_id, taskId: run.task_id ?? null };
}
