/**
 * Retry planning for failed agent runs: exponential-ish backoff steps with
 * jitter, rate-limit-aware scheduling, and escalation once retries run out.
 *
 * Pure: time and randomness are passed in so plans are reproducible.
 */
import { isRateLimitError, readRateLimitReset } from './rateLimit.js';

/**
 * Up to 4 retries, one per backoff step (e.g. 2m, 10m, 30m, 2h); the 5th
 * failed run escalates to a human instead of retrying again.
 */
export const MAX_RETRY_COUNT = 4;

const DURATION_UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

// Units are lowercase only: "M" would be ambiguous between minutes and months.
const DURATION_ITEM = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/;

/**
 * Parses a comma-separated duration list such as "2m,10m,30m,2h" into whole
 * milliseconds. A bare number is seconds.
 */
export function parseDurationList(spec: string): number[] {
  return spec.split(',').map((item) => parseDurationItem(item.trim(), spec));
}

function parseDurationItem(item: string, spec: string): number {
  const match = DURATION_ITEM.exec(item);
  if (!match) {
    throw new Error(
      `Invalid duration '${item}' in '${spec}': expected a number followed by ms, s, m, h or d`,
    );
  }
  const unitMs = DURATION_UNIT_MS[match[2] ?? 's'] ?? 1_000;
  const ms = Math.round(Number(match[1]) * unitMs);
  if (!Number.isSafeInteger(ms)) {
    throw new Error(`Invalid duration '${item}' in '${spec}': too large to represent in milliseconds`);
  }
  return ms;
}

/**
 * Delay before retry number `retryIndex` (0-based): the matching step, or the
 * last step once the list runs out, spread by ±`jitter` so many agents failing
 * together do not all retry in the same instant.
 *
 * `random` must return values in [0, 1), like Math.random.
 */
export function backoffDelayMs(
  retryIndex: number,
  steps: number[],
  jitter: number,
  random: () => number,
): number {
  assertBackoffInputs(retryIndex, steps, jitter);
  const step = steps[Math.min(retryIndex, steps.length - 1)] ?? 0;
  const jittered = step * (1 + jitter * (2 * random() - 1));
  // Rounding alone could step just outside the jitter band; clamping to the
  // whole milliseconds inside it keeps the documented bound exact. The band
  // always contains `step` itself, so the clamp range is never empty.
  const lowest = Math.max(0, Math.ceil(step * (1 - jitter)));
  const highest = Math.floor(step * (1 + jitter));
  return Math.min(highest, Math.max(lowest, Math.round(jittered)));
}

function assertBackoffInputs(retryIndex: number, steps: number[], jitter: number): void {
  if (!Number.isInteger(retryIndex) || retryIndex < 0) {
    throw new RangeError(`Invalid retry index ${retryIndex}: expected an integer >= 0`);
  }
  if (steps.length === 0) {
    throw new RangeError('Invalid backoff steps []: expected at least one step');
  }
  const badStep = steps.find((step) => !Number.isSafeInteger(step) || step < 0);
  if (badStep !== undefined) {
    throw new RangeError(
      `Invalid backoff step ${badStep} in [${steps.join(', ')}]: expected whole milliseconds >= 0`,
    );
  }
  if (!(jitter >= 0 && jitter <= 1)) {
    throw new RangeError(`Invalid jitter ${jitter}: expected a fraction between 0 and 1`);
  }
}

export type RetryPlan =
  | {
      kind: 'retry';
      retryAt: Date;
      /** Retries done once this one is scheduled (previous count + 1). */
      retryCount: number;
      source: 'rate_limit_parsed' | 'backoff';
      /** The provider's reset instant (without buffer) when it drove retryAt. */
      parsedResetAt: Date | null;
      /** The limit form (rateLimit.ts LIMIT_FORMS, or a structured event) that gave parsedResetAt. */
      resetForm: string | null;
      /** Why a reset the text named was not used (a daylight-saving gap, an impossible time, already past). */
      unusableReset: string | null;
      rateLimited: boolean;
    }
  | {
      kind: 'escalate';
      /** Retries already done; unchanged because no retry is scheduled. */
      retryCount: number;
      rateLimited: boolean;
    };

export type PlanRetryInput = {
  errorText: string;
  now: Date;
  /** Retries already done for this run. */
  retryCount: number;
  steps: number[];
  jitter: number;
  bufferSec: number;
  maxRetries?: number;
  random: () => number;
  /** The host's IANA time zone: a clock time the text names with no zone is read in it. Default UTC. */
  hostZone?: string;
  /**
   * What the session itself said in a structured event (an agent program's rate-limit event),
   * which wins over the text: whether it was a limit, and the reset it named.
   */
  signal?: { rateLimited: boolean; resetAt: number | null } | null;
};

/** Decides whether and when a failed run is retried, or that it escalates. */
export function planRetry(input: PlanRetryInput): RetryPlan {
  const { errorText, now, retryCount, steps, jitter, bufferSec, random } = input;
  const maxRetries = input.maxRetries ?? MAX_RETRY_COUNT;
  const rateLimited = input.signal?.rateLimited === true || isRateLimitError(errorText);

  // Checked before anything else: a provider that keeps rate-limiting us
  // must still surface to a human after the retry budget is spent.
  if (retryCount >= maxRetries) {
    return { kind: 'escalate', retryCount, rateLimited };
  }

  const nextRetryCount = retryCount + 1;
  const reset = rateLimited ? resetOf(errorText, now, input) : null;
  let unusableReset = reset && 'unusable' in reset ? reset.unusable : null;
  if (reset && 'at' in reset) {
    const retryAt = new Date(reset.at.getTime() + bufferSec * 1_000);
    // A reset already in the past (stale text, clock skew) says nothing about
    // when to retry, so it falls through to ordinary backoff.
    if (retryAt.getTime() > now.getTime()) {
      return {
        kind: 'retry',
        retryAt,
        retryCount: nextRetryCount,
        source: 'rate_limit_parsed',
        parsedResetAt: reset.at,
        resetForm: reset.form,
        unusableReset: null,
        rateLimited,
      };
    }
    unusableReset = `the reset it names (${reset.at.toISOString()}) has passed`;
  }

  const delayMs = backoffDelayMs(retryCount, steps, jitter, random);
  return {
    kind: 'retry',
    retryAt: new Date(now.getTime() + delayMs),
    retryCount: nextRetryCount,
    source: 'backoff',
    parsedResetAt: null,
    resetForm: null,
    unusableReset,
    rateLimited,
  };
}

/** The reset a structured event named, else the one the text names (or why it names none usable). */
function resetOf(errorText: string, now: Date, input: PlanRetryInput) {
  const signalled = input.signal?.resetAt ?? null;
  if (signalled !== null) return { form: 'structured_event', at: new Date(signalled) };
  return readRateLimitReset(errorText, now, input.hostZone);
}
