/**
 * OpenAI's Codex CLI (`codex`, openai/codex), run as `codex exec --json --skip-git-repo-check`: the
 * prompt on stdin (`-`), one JSON event per line on stdout (docs/agent-clis.md).
 * - `thread.started` carries the thread id; `item.completed` items are the agent's messages
 *   (`agent_message`), its reasoning, commands and tool calls; `turn.completed` carries `usage`
 *   (`input_tokens` with the cached ones included, `cached_input_tokens`, `output_tokens`), which on
 *   a resumed thread is the thread's running total; `turn.failed` and a final `error` are failures.
 * - An `error` event that says "Reconnecting... n/m" is Codex retrying by itself, not a failure.
 * - `codex exec resume <id>` of a thread it does not have starts a new thread: that is a refused
 *   resume, seen in `thread.started`.
 */
import { OFFICE_MCP_SERVER } from '../../domain/agentPrograms.js';
import type { OutputStream, TranscriptEvent } from '../types.js';
import { emptySession, jsonLine, numberOf, objectOf, plainLine, stringOf, type McpHandOff, type ProgramAdapter } from './types.js';

/**
 * `-c mcp_servers.<server>…` adds the server for this session only, over the user's config.toml;
 * `bearer_token_env_var` names the variable that holds the token (the session has OFFICE_RUN_TOKEN),
 * so the token itself is in no argument.
 */
function mcpArgs(mcp: McpHandOff): string[] {
  const key = `mcp_servers.${OFFICE_MCP_SERVER}`;
  return ['-c', `${key}.url=${JSON.stringify(mcp.url)}`, '-c', `${key}.bearer_token_env_var="OFFICE_RUN_TOKEN"`];
}

/** Codex's own reconnect attempts, which it reports as `error` events before it gives up or succeeds. */
const RECONNECTING = /^Reconnecting\.\.\./;

/** What a session refusing to resume says on stderr (codex-rs: no rollout found for the id). */
const RESUME_NOT_FOUND = /no (?:rollout|session|thread|conversation) found/i;

export const codex: ProgramAdapter = {
  kind: 'codex',
  runningTotals: { usage: true, cost: false },

  invocation({ prompt, model, resumeSessionId, extraArgs, mcp }) {
    const args = ['exec', ...(mcp ? mcpArgs(mcp) : []), '--json', '--skip-git-repo-check'];
    if (model !== undefined) args.push('--model', model);
    if (resumeSessionId !== null) args.push('resume', resumeSessionId);
    // `-`: the prompt is read from stdin, so nothing in it can be taken for a flag.
    return { args: [...args, ...extraArgs, '-'], stdin: prompt };
  },

  parser({ resumeSessionId: requested }) {
    const session = emptySession();
    let lastError: string | null = null;
    let completed = false;
    return {
      line(stream: OutputStream, line: string): TranscriptEvent[] {
        if (stream === 'stderr') {
          if (requested !== null && RESUME_NOT_FOUND.test(line)) session.resumeRefused = true;
          return line.trim() ? [plainLine(stream, line)] : [];
        }
        const event = jsonLine(line);
        if (!event) return line.trim() ? [plainLine(stream, line)] : [];
        const type = String(event.type ?? 'event');
        switch (type) {
          case 'thread.started':
            session.sessionId = stringOf(event.thread_id);
            // A resume of a thread Codex does not have starts a new one instead of failing.
            if (requested !== null && session.sessionId !== null && session.sessionId !== requested) session.resumeRefused = true;
            return [{ stream, type, text: `thread ${session.sessionId ?? '?'}` }];
          case 'item.started':
          case 'item.updated':
          case 'item.completed':
            return itemEvents(session, type, objectOf(event.item));
          case 'turn.completed': {
            completed = true;
            lastError = null;
            const usage = objectOf(event.usage);
            if (usage) {
              session.usage = {
                input_tokens: numberOf(usage.input_tokens) ?? 0,
                output_tokens: numberOf(usage.output_tokens) ?? 0,
                cached_input_tokens: numberOf(usage.cached_input_tokens) ?? 0,
              };
            }
            return [{ stream, type, text: 'turn completed' }];
          }
          case 'turn.failed':
            completed = false;
            lastError = stringOf(objectOf(event.error)?.message) ?? 'the turn failed';
            session.error = lastError;
            return [{ stream, type, text: lastError }];
          case 'error': {
            const message = stringOf(event.message) ?? 'error';
            if (!RECONNECTING.test(message)) lastError = message;
            return [{ stream, type, text: message }];
          }
          default:
            return [{ stream, type, text: line }];
        }
      },
      result() {
        // An `error` after which no turn completed is the session's end: a failure.
        return session.error === null && lastError !== null && !completed ? { ...session, error: lastError } : session;
      },
    };
  },
};

/** The agent's messages (the last one is its answer), and its commands, tool calls and reasoning for the transcript. */
function itemEvents(session: ReturnType<typeof emptySession>, eventType: string, item: Record<string, unknown> | null): TranscriptEvent[] {
  if (!item) return [];
  const kind = String(item.type ?? 'item');
  // Started and updated items are shown once, complete.
  if (eventType !== 'item.completed') return [];
  switch (kind) {
    case 'agent_message':
      session.finalText = stringOf(item.text) ?? session.finalText;
      return [{ stream: 'stdout', type: 'agent_message', text: stringOf(item.text) ?? '' }];
    case 'command_execution':
      return [{ stream: 'stdout', type: 'command_execution', text: `${String(item.command ?? '')}${numberOf(item.exit_code) !== null ? ` (exit ${String(item.exit_code)})` : ''}` }];
    case 'error':
      // A warning Codex reports as an item (unknown model metadata, say): shown, not a failure.
      return [{ stream: 'stdout', type: 'warning', text: stringOf(item.message) ?? '' }];
    default:
      return [{ stream: 'stdout', type: kind, text: stringOf(item.text) ?? stringOf(item.message) ?? JSON.stringify(item).slice(0, 500) }];
  }
}
