/**
 * Google's Gemini CLI (`gemini`, google-gemini/gemini-cli), run as `gemini -o stream-json`: the
 * prompt on stdin, one JSON event per line on stdout (docs/agent-clis.md).
 * - `init` carries the session id; `message` events the user's and the assistant's text (the
 *   assistant's in `delta` pieces); `tool_use` and `tool_result` the tool calls; `result` the
 *   outcome (`status`, an `error` object) and `stats` (`input_tokens` with the cached ones
 *   included, `cached`, `output_tokens`).
 * - A quota error's cause (TerminalQuotaError, "Please retry in 12.5s", "Your quota will reset
 *   after …") is printed on stderr only: the executor hands stderr to rate-limit parsing.
 * - `--resume <id>` of a session it does not have prints "Error resuming session" on stderr.
 * - On a capacity limit it retries by itself after the reset, sleeping for up to hours in between
 *   ("Attempt 1 failed: … Your quota will reset after 1h49m8s.. Retrying after 6639748ms..."): such
 *   a session is stopped, and the scheduler holds the quota until the reset.
 */
import { isRateLimitError } from '../../domain/rateLimit.js';
import type { OutputStream, TranscriptEvent } from '../types.js';
import { emptySession, jsonLine, numberOf, objectOf, plainLine, stringOf, type ProgramAdapter } from './types.js';

const RESUME_NOT_FOUND = /Error resuming session/i;

/** Gemini CLI's own retry of a failed request: "Attempt 1 failed: … Retrying after 6639748ms...". */
const OWN_RETRY = /Attempt \d+ failed: (.*)Retrying after (\d+)ms/i;

/**
 * A wait of Gemini CLI's own longer than this is a quota reset it sleeps out (1h49m for a capacity
 * limit): the scheduler waits instead. Shorter ones (a per-minute quota's 12.5 s) it may retry itself.
 */
const LONGEST_OWN_WAIT_MS = 5 * 60_000;

export const geminiCli: ProgramAdapter = {
  kind: 'gemini_cli',
  runningTotals: { usage: false, cost: false },

  /**
   * No MCP hand-off: Gemini CLI reads MCP servers only from settings files, the user's own or the
   * system ones, which it skips unless root owns them and no one else can write their folders (a
   * per-run file in a temp folder is refused). The README shows the one entry a user adds to their
   * own settings, which reads OFFICE_API_URL and OFFICE_RUN_TOKEN from each session's environment.
   */
  invocation({ prompt, model, resumeSessionId, extraArgs }) {
    const args = ['--output-format', 'stream-json'];
    if (model !== undefined) args.push('--model', model);
    if (resumeSessionId !== null) args.push('--resume', resumeSessionId);
    return { args: [...args, ...extraArgs], stdin: prompt };
  },

  parser() {
    const session = emptySession();
    let answer = '';
    return {
      line(stream: OutputStream, line: string): TranscriptEvent[] {
        if (stream === 'stderr') {
          if (RESUME_NOT_FOUND.test(line)) session.resumeRefused = true;
          const retry = OWN_RETRY.exec(line);
          if (retry && Number(retry[2]) > LONGEST_OWN_WAIT_MS && isRateLimitError(retry[1]!)) session.waitsForQuota = retry[1]!.trim();
          return line.trim() ? [plainLine(stream, line)] : [];
        }
        const event = jsonLine(line);
        if (!event) return line.trim() ? [plainLine(stream, line)] : [];
        const type = String(event.type ?? 'event');
        switch (type) {
          case 'init':
            session.sessionId = stringOf(event.session_id);
            return [{ stream, type, text: `session ${session.sessionId ?? '?'}${stringOf(event.model) ? ` (model ${String(event.model)})` : ''}` }];
          case 'message': {
            const text = stringOf(event.content) ?? '';
            if (event.role === 'assistant') {
              answer = event.delta === true ? answer + text : text;
              session.finalText = answer;
            }
            return [{ stream, type: event.role === 'assistant' ? 'assistant' : 'user', text }];
          }
          case 'tool_use':
            return [{ stream, type, text: `${String(event.tool_name ?? '')} ${JSON.stringify(event.parameters ?? {}).slice(0, 500)}` }];
          case 'tool_result':
            return [{ stream, type, text: `${String(event.status ?? '')} ${stringOf(event.output) ?? ''}`.trim() }];
          case 'error':
            return [{ stream, type, text: stringOf(event.message) ?? 'error' }];
          case 'result':
            readResult(session, event);
            return [{ stream, type, text: String(event.status ?? 'result') }];
          default:
            return [{ stream, type, text: line }];
        }
      },
      result: () => session,
    };
  },
};

function readResult(session: ReturnType<typeof emptySession>, event: Record<string, unknown>): void {
  if (event.status !== 'success') {
    session.error = stringOf(objectOf(event.error)?.message) ?? `Gemini CLI reported ${String(event.status ?? 'an error')}`;
  }
  const stats = objectOf(event.stats);
  if (stats && (numberOf(stats.input_tokens) !== null || numberOf(stats.output_tokens) !== null)) {
    session.usage = {
      input_tokens: numberOf(stats.input_tokens) ?? 0,
      output_tokens: numberOf(stats.output_tokens) ?? 0,
      cached_input_tokens: numberOf(stats.cached) ?? 0,
    };
  }
}
