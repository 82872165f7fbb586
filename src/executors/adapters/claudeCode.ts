/**
 * Claude Code (`claude`, anthropics/claude-code), run as `claude -p --output-format stream-json
 * --verbose`: the prompt on stdin, one JSON event per line on stdout (docs/agent-clis.md).
 * - `system`/`init` carries the session id; `assistant` and `user` carry the messages and tool
 *   calls; `rate_limit_event` says whether a limit allowed, warned or rejected the request, with
 *   `resetsAt` in epoch seconds; the last line, `result`, carries the answer (`result`), the cost
 *   (`total_cost_usd`, the session's running total after `--resume`), the turn's `usage` and
 *   `is_error`, which is true on failures even when `subtype` says "success" and the exit code is 0.
 * - `--resume <id>` of a session that does not exist prints "No conversation found with session ID", in the
 *   result's `errors` and on stderr.
 * - A limit on a subscription is a `rate_limit_event` (OAuth only) and the result text "You've hit
 *   your limit · resets 5pm (Europe/Warsaw)", all on stdout: its text goes to rate-limit parsing.
 */
import { join } from 'node:path';
import { OFFICE_MCP_SERVER, type Usage } from '../../domain/agentPrograms.js';
import type { OutputStream, TranscriptEvent } from '../types.js';
import { emptySession, jsonLine, numberOf, objectOf, plainLine, stringOf, type McpHandOff, type ProgramAdapter } from './types.js';

/**
 * `--mcp-config <file>` adds the server to the user's own (a file, not the JSON inline, so that the
 * token is not in the process list), and `--allowedTools mcp__<server>` lets a non-interactive
 * session call its tools. Both options take several values, so an option always follows them.
 */
function mcpArgs(mcp: McpHandOff): string[] {
  return ['--mcp-config', mcpConfigPath(mcp), '--allowedTools', `mcp__${OFFICE_MCP_SERVER}`];
}

const mcpConfigPath = (mcp: McpHandOff) => join(mcp.dir, 'claude-mcp.json');

function mcpConfigFile(mcp: McpHandOff): { path: string; content: string } {
  const server = { type: 'http', url: mcp.url, headers: { Authorization: `Bearer ${mcp.token}` } };
  return { path: mcpConfigPath(mcp), content: JSON.stringify({ mcpServers: { [OFFICE_MCP_SERVER]: server } }) };
}

/** What Claude Code prints on stderr when `--resume` names no session it has. */
const RESUME_NOT_FOUND = /No conversation found with session ID/i;

/** How much of a tool call's input a transcript event shows. */
const TOOL_INPUT_CHARS = 500;

export const claudeCode: ProgramAdapter = {
  kind: 'claude_code',
  runningTotals: { usage: false, cost: true },

  invocation({ prompt, model, resumeSessionId, extraArgs, mcp }) {
    // stream-json needs --verbose with --print; the prompt goes on stdin, so no argument can be mistaken for a flag.
    const args = ['-p', ...(mcp ? mcpArgs(mcp) : []), '--output-format', 'stream-json', '--verbose'];
    if (model !== undefined) args.push('--model', model);
    if (resumeSessionId !== null) args.push('--resume', resumeSessionId);
    return { args: [...args, ...extraArgs], stdin: prompt, ...(mcp ? { files: [mcpConfigFile(mcp)] } : {}) };
  },

  parser() {
    const session = emptySession();
    return {
      line(stream: OutputStream, line: string): TranscriptEvent[] {
        if (stream === 'stderr') {
          if (RESUME_NOT_FOUND.test(line)) session.resumeRefused = true;
          return line.trim() ? [plainLine(stream, line)] : [];
        }
        const event = jsonLine(line);
        if (!event) return line.trim() ? [plainLine(stream, line)] : [];
        session.sessionId = stringOf(event.session_id) ?? session.sessionId;
        switch (event.type) {
          case 'assistant':
          case 'user':
            return messageEvents(String(event.type), objectOf(event.message));
          case 'rate_limit_event':
            return [readRateLimitEvent(session, objectOf(event.rate_limit_info))];
          case 'result':
            readResult(session, event);
            return [{ stream, type: 'result', text: stringOf(event.result) ?? String(event.subtype ?? 'result') }];
          case 'system':
            return [{ stream, type: 'system', text: `${String(event.subtype ?? 'system')}${stringOf(event.model) ? ` (model ${String(event.model)})` : ''}` }];
          default:
            return [{ stream, type: String(event.type ?? 'event'), text: line }];
        }
      },
      result: () => session,
    };
  },
};

/** An assistant's text and tool calls, or a user turn's tool results, one transcript event each. */
function messageEvents(role: string, message: Record<string, unknown> | null): TranscriptEvent[] {
  const content = Array.isArray(message?.content) ? message.content : [];
  const events: TranscriptEvent[] = [];
  for (const part of content) {
    const block = objectOf(part);
    if (!block) continue;
    if (block.type === 'text' && stringOf(block.text)) events.push({ stream: 'stdout', type: role, text: String(block.text) });
    else if (block.type === 'tool_use') events.push({ stream: 'stdout', type: 'tool_use', text: `${String(block.name)} ${JSON.stringify(block.input ?? {}).slice(0, TOOL_INPUT_CHARS)}` });
    else if (block.type === 'tool_result') events.push({ stream: 'stdout', type: 'tool_result', text: toolResultText(block.content) });
  }
  return events;
}

function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => stringOf(objectOf(part)?.text) ?? '').filter(Boolean).join('\n');
}

/** `rejected` is a failure with its reset; `allowed_warning` is recorded on the quota; `allowed` is nothing. */
function readRateLimitEvent(session: ReturnType<typeof emptySession>, info: Record<string, unknown> | null): TranscriptEvent {
  const status = stringOf(info?.status) ?? 'unknown';
  const resetsAt = numberOf(info?.resetsAt);
  const window = stringOf(info?.rateLimitType) ?? 'usage';
  const resets = resetsAt !== null ? ` (resets ${new Date(resetsAt * 1000).toISOString()})` : '';
  if (status === 'rejected') session.rateLimit = { resetAt: resetsAt !== null ? resetsAt * 1000 : null };
  if (status === 'allowed_warning') {
    const used = numberOf(info?.utilization);
    session.limitWarning = `${window} limit ${used !== null ? `${Math.round(used * 100)}% used` : 'near'}${resets}`;
  }
  return { stream: 'stdout', type: 'rate_limit_event', text: `${status}: ${window}${resets}` };
}

function readResult(session: ReturnType<typeof emptySession>, event: Record<string, unknown>): void {
  session.finalText = stringOf(event.result) ?? session.finalText;
  session.costUsd = numberOf(event.total_cost_usd) ?? session.costUsd;
  session.usage = usageOf(objectOf(event.usage)) ?? session.usage;
  const errors = Array.isArray(event.errors) ? event.errors.map(String) : [];
  if (errors.some((text) => RESUME_NOT_FOUND.test(text))) session.resumeRefused = true;
  // is_error is the truth: a 429 answers subtype "success" with is_error true, and exit code 0 is possible.
  if (event.is_error === true) session.error = stringOf(event.result) ?? (errors.join('\n') || `Claude Code reported an error (${String(event.subtype ?? 'unknown')})`);
}

/**
 * Claude Code's usage counts cache reads and writes apart from `input_tokens`; the run's input is
 * all three, of which the cache reads are the cached part (API.md, "What a run records").
 */
function usageOf(usage: Record<string, unknown> | null): Usage | null {
  if (!usage) return null;
  const input = numberOf(usage.input_tokens) ?? 0;
  const cacheRead = numberOf(usage.cache_read_input_tokens) ?? 0;
  const cacheWrite = numberOf(usage.cache_creation_input_tokens) ?? 0;
  return { input_tokens: input + cacheRead + cacheWrite, output_tokens: numberOf(usage.output_tokens) ?? 0, cached_input_tokens: cacheRead };
}
