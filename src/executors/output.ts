/**
 * Helpers shared by the executors for turning raw agent output into a
 * LaunchResult: bounded capture, text tails, result-JSON extraction.
 */
import type { LaunchResult } from './types.js';

/** How much trailing text ends up in a result or error message. */
export const TEXT_TAIL_CHARS = 4_000;

/** How many bytes of each output stream a command executor keeps in memory. */
export const CAPTURE_LIMIT_BYTES = 64 * 1024;

/** The last `maxChars` characters of `text`, trimmed. */
export function tail(text: string, maxChars: number = TEXT_TAIL_CHARS): string {
  const trimmed = text.trim();
  return trimmed.length <= maxChars ? trimmed : trimmed.slice(trimmed.length - maxChars).trim();
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses `text` as JSON and returns it only if it is an object (not an array or scalar). */
export function parseJsonObject(text: string): Record<string, unknown> | null {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return null;
  try {
    const value: unknown = JSON.parse(trimmed);
    return isPlainObject(value) ? value : null;
  } catch {
    return null;
  }
}

/** The result of a whole response body: the body if it is a JSON object, else its text tail. */
export function resultFromBody(text: string): Record<string, unknown> {
  return parseJsonObject(text) ?? { result: tail(text) };
}

/** An error's message, followed by its cause's message when there is one (fetch hides the real reason there). */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause: unknown = error.cause;
  if (cause instanceof Error && cause.message && !error.message.includes(cause.message)) {
    return `${error.message}: ${cause.message}`;
  }
  return error.message || error.name;
}

/** Converts an optional spec `timeout_sec` into a setTimeout delay. */
export function timeoutMs(timeoutSec: number | undefined): number | null {
  if (timeoutSec === undefined) return null;
  // setTimeout fires immediately for delays above 2^31-1 ms; clamp rather than misfire.
  return Math.min(Math.max(0, Math.round(timeoutSec * 1000)), 2_147_483_647);
}

/** Monotonic stopwatch for `durationMs`. */
export function startStopwatch(): () => number {
  const start = performance.now();
  return () => Math.max(0, Math.round(performance.now() - start));
}

export function failedResult(
  error: string,
  durationMs: number,
  extra: Partial<Pick<LaunchResult, 'resultJson' | 'exitCode' | 'timedOut'>> = {},
): LaunchResult {
  return {
    ok: false,
    resultJson: extra.resultJson ?? {},
    error,
    exitCode: extra.exitCode ?? null,
    timedOut: extra.timedOut ?? false,
    durationMs,
  };
}

/** The error of a run ended by its timeout (API.md: a run killed by a timeout fails with `timeout`). */
export const TIMEOUT_ERROR = 'timeout';

/** A timed-out run: `timeout`, then on the next lines whatever the agent last wrote to stderr, which rate-limit parsing reads. */
export function timedOutResult(
  durationMs: number,
  stderrTail = '',
  extra: Partial<Pick<LaunchResult, 'resultJson' | 'exitCode'>> = {},
): LaunchResult {
  return failedResult(stderrTail ? `${TIMEOUT_ERROR}\n${stderrTail}` : TIMEOUT_ERROR, durationMs, { ...extra, timedOut: true });
}

/** The session never started: `mayStart` said no (its run was cancelled, or another owner settled it). */
export function notStartedResult(durationMs: number): LaunchResult {
  return { ...failedResult('not started: its run had ended before its session could start', durationMs), started: false };
}

export function okResult(resultJson: Record<string, unknown>, durationMs: number, exitCode: number | null = null): LaunchResult {
  return { ok: true, resultJson, error: null, exitCode, timedOut: false, durationMs };
}

/**
 * Accumulates a byte stream but only remembers the last `limit` bytes, so a
 * chatty agent cannot grow scheduler memory without bound.
 */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly limit: number = CAPTURE_LIMIT_BYTES) {}

  push(chunk: Buffer | string): void {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.chunks.push(buf);
    this.size += buf.length;
    // Compact lazily (at twice the limit) so steady output is not re-copied on every chunk.
    if (this.size > this.limit * 2) this.compact();
  }

  private compact(): void {
    const all = Buffer.concat(this.chunks);
    const kept = all.length > this.limit ? all.subarray(all.length - this.limit) : all;
    this.chunks = [Buffer.from(kept)];
    this.size = kept.length;
  }

  toString(): string {
    this.compact();
    // A cut may land inside a multi-byte character; the decoder substitutes U+FFFD, which is harmless in a tail.
    return this.chunks[0]?.toString('utf8') ?? '';
  }
}
