/**
 * Assembles the prompt an agent receives: why it was woken, what it is about, and (for a
 * taskless routine) the continuation summary. A resumed (agent, task) session gets only the
 * delta since its last run; the agent CLI keeps the rest in its own session.
 */
import { summaryPromptSlice } from './summary.js';
import type { Comment, Task } from './types.js';

export interface PromptInput {
  agentName: string;
  /** The agent's id, which its wakes of itself name. */
  agentId: string;
  source: string;
  reason: string;
  payload: Record<string, unknown>;
  /** Every request folded into this wakeup, oldest first. */
  wakes: { source: string; reason: string; payload: Record<string, unknown>; requested_at: string }[];
  task: Pick<Task, 'id' | 'title' | 'description' | 'state'> | null;
  /** Comments on the task: all of them, or only those since the last run when resuming. */
  comments: Pick<Comment, 'author_type' | 'author_id' | 'body' | 'created_at'>[];
  /** The continuation summary of a taskless routine run; taskless runs always start fresh. */
  summary: string | null;
  /** Set when an earlier run of this (agent, task) pair exists. */
  resumeSince: number | null;
  missedTicks: { count: number; since: string } | null;
}

export interface AssembledPrompt {
  prompt: string;
  summaryInjected: string;
}

export function assemblePrompt(input: PromptInput): AssembledPrompt {
  const summaryInjected = input.summary ? summaryPromptSlice(input.summary) : '';
  const sections = input.resumeSince !== null ? resumeSections(input) : freshSections(input, summaryInjected);
  return { prompt: sections.filter((s) => s.length > 0).join('\n\n') + '\n', summaryInjected };
}

function freshSections(input: PromptInput, summary: string): string[] {
  return [
    summary ? `# Continuation summary\n${summary}` : '',
    `# Wakeup\nYou are ${input.agentName}. You were woken by ${describeSource(input.source)} (${input.reason}).`,
    input.task ? taskSection(input.task) : '',
    wakesSection(input.wakes),
    input.missedTicks ? missedTicksLine(input.missedTicks) : '',
    commentsSection('Comments', input.comments),
    actingSection(input),
  ];
}

function resumeSections(input: PromptInput): string[] {
  return [
    `# Resume\nNew since your last run on this task (${new Date(input.resumeSince!).toISOString()}):`,
    wakesSection(input.wakes),
    commentsSection('New comments', input.comments),
    input.task ? `Task state is now ${input.task.state}.` : '',
  ];
}

/**
 * How the agent acts on the office (API.md, "Run token"): what its run token may do, with the paths
 * filled in, and the actions its last JSON line may carry instead. A resumed session was told once.
 */
function actingSection(input: PromptInput): string {
  const task = input.task?.id ?? '<task id>';
  return [
    '# Acting on the office',
    'Call the API at $OFFICE_API_URL with the header `Authorization: Bearer $OFFICE_RUN_TOKEN` (both are in your environment; the token works while this run runs):',
    `- comment: POST /api/office/tasks/${task}/comments {"body": "..."}`,
    `- move your task: POST /api/office/tasks/${task}/move {"state": "IN_PROGRESS" | "IN_REVIEW" | "DONE" | "BLOCKED"}`,
    `- create a subtask: POST /api/office/tasks {"workspace_id": "$OFFICE_WORKSPACE_ID", "title": "...", "parent_id": "${task}", "assignee_agent_instance_id": "..."}`,
    `- wake yourself later: POST /api/office/agents/${input.agentId}/wake {"reason": "..."}`,
    '- read anything in this workspace with GET (not other agents\' runs).',
    'Or end your output with one JSON line: {"summary": "...", "actions": [{"type": "comment", "task_id": "...", "body": "..."}, {"type": "move_task", "task_id": "...", "state": "DONE"}, {"type": "self_wake", "reason": "...", "delay_sec": 600}]}.',
  ].join('\n');
}

function taskSection(task: NonNullable<PromptInput['task']>): string {
  return `# Task ${task.id}: ${task.title}\nState: ${task.state}${task.description ? `\n\n${task.description}` : ''}`;
}

function wakesSection(wakes: PromptInput['wakes']): string {
  if (wakes.length === 0) return '';
  const lines = wakes.map((wake) => `- ${wake.requested_at} ${wake.source}: ${wake.reason} ${JSON.stringify(wake.payload)}`);
  return `# Why you were woken (${wakes.length} request${wakes.length === 1 ? '' : 's'})\n${lines.join('\n')}`;
}

function commentsSection(title: string, comments: PromptInput['comments']): string {
  if (comments.length === 0) return '';
  const lines = comments.map((c) => `- [${new Date(c.created_at).toISOString()}] ${c.author_type} ${c.author_id}: ${c.body}`);
  return `# ${title}\n${lines.join('\n')}`;
}

export function missedTicksLine(missed: { count: number; since: string }): string {
  return `Note: you missed ${missed.count} ticks since ${missed.since}.`;
}

const SOURCE_DESCRIPTIONS: Record<string, string> = {
  routine: 'a routine',
  comment: 'a new comment',
  agent_error: "another agent's error",
  self: 'your own request',
  user: 'a person',
  task_assigned: 'a task assignment',
  task_blockers_resolved: 'blockers resolving',
  task_children_completed: 'subtasks completing',
  approval_resolved: 'an approval decision',
  budget_alert: 'a budget alert',
};

function describeSource(source: string): string {
  return SOURCE_DESCRIPTIONS[source] ?? source;
}
