/**
 * The interface every agent program's adapter implements (DESIGN.md, "Agent programs"): how its
 * session is started, fresh or resumed, and how its output lines read. The executor that drives
 * them is agentProgram.ts; each program is one small module beside this one.
 */
import type { AgentProgramKind, Usage } from '../../domain/agentPrograms.js';
import { isPlainObject } from '../output.js';
import type { OutputStream, TranscriptEvent } from '../types.js';

export interface InvocationOptions {
  prompt: string;
  model: string | undefined;
  /** The program's own session id to resume, or null for a fresh session. */
  resumeSessionId: string | null;
  /** The executor's `args`: added after the ones the adapter chooses. */
  extraArgs: readonly string[];
  /** The scheduler's MCP server to hand to the program; absent or null: none (the executor says `mcp: false`). */
  mcp?: McpHandOff | null | undefined;
}

/**
 * The scheduler's MCP server for one run: its URL, the run token, and a folder private to the run,
 * for a program whose MCP configuration is read from a file. Never the user's own config files.
 */
export interface McpHandOff {
  url: string;
  token: string;
  dir: string;
}

/** The program's arguments, what goes on its stdin, and the per-run files its MCP configuration needs. */
export interface Invocation {
  args: string[];
  stdin: string;
  /** Written (mode 0600) into the hand-off's folder before the session starts; the folder goes when it ends. */
  files?: { path: string; content: string }[];
}

/** What a session said about itself, read from its output once it ended. */
export interface ParsedSession {
  sessionId: string | null;
  /** The program's final answer (Claude Code's `result`, Codex's last agent message, Gemini CLI's `response`). */
  finalText: string | null;
  /** Token counts as reported: the turn's own, or the session's running total (see ProgramAdapter.runningTotals). */
  usage: Usage | null;
  /** The cost the program reported, if it reports one. */
  costUsd: number | null;
  /** The error the session reported (an `is_error` result, a failed turn, an error object), whatever its exit code. */
  error: string | null;
  /** A structured event said a limit rejected the session, with the reset it named (epoch ms) if any. */
  rateLimit: { resetAt: number | null } | null;
  /** A structured event said a limit is near: what it said. */
  limitWarning: string | null;
  /** The program refused to resume the session it was given (session not found). */
  resumeRefused: boolean;
  /**
   * The program said it will sit out a long quota wait by itself (Gemini CLI sleeps until the reset
   * and tries again): the session is stopped, and the scheduler holds the quota instead, without a
   * session holding the agent's slot for hours. What it said.
   */
  waitsForQuota: string | null;
}

export interface ProgramParser {
  /** One line of the session's output, as it arrives; returns the transcript events it makes. */
  line(stream: OutputStream, line: string): TranscriptEvent[];
  /** What the whole output said. */
  result(): ParsedSession;
}

export interface ProgramAdapter {
  kind: AgentProgramKind;
  /** The arguments for a fresh or a resumed session. */
  invocation(options: InvocationOptions): Invocation;
  /** A parser for one session's output; `resumeSessionId` is the session it was asked to resume, if any. */
  parser(options: { resumeSessionId: string | null }): ProgramParser;
  /**
   * Which reported figures are the session's running totals rather than this run's own: after a
   * resume the run records the difference from the previous run (API.md, "What a run records").
   */
  runningTotals: { usage: boolean; cost: boolean };
}

/** A ParsedSession that has heard nothing yet. */
export function emptySession(): ParsedSession {
  return { sessionId: null, finalText: null, usage: null, costUsd: null, error: null, rateLimit: null, limitWarning: null, resumeRefused: false, waitsForQuota: null };
}

/** A line as JSON, when it is a JSON object: programs mix JSON lines with plain ones. */
export { parseJsonObject as jsonLine } from '../output.js';

export const stringOf = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);
export const numberOf = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
export const objectOf = (value: unknown): Record<string, unknown> | null => (isPlainObject(value) ? value : null);

/** A plain line of output, as the transcript shows it. */
export const plainLine = (stream: OutputStream, line: string): TranscriptEvent => ({ stream, type: 'line', text: line });
