/**
 * Rate-limit detection and reset-time parsing for failed agent runs.
 *
 * Pure: no I/O and no clock reads. Callers pass `now`, so the same error text
 * always yields the same schedule in tests, replays and simulations.
 */

/**
 * Seconds added on top of a parsed reset instant before retrying. Providers
 * print reset times rounded to the minute and their clocks drift from ours,
 * so waking exactly at the advertised instant often hits the limit again and
 * wastes one of the few retries a run gets.
 */
export const RATE_LIMIT_BUFFER_SEC_DEFAULT = 30;

const SECOND_MS = 1_000;
const DAY_MS = 24 * 60 * 60 * SECOND_MS;

// ---------------------------------------------------------------------------
// Detection
// ---------------------------------------------------------------------------

// The phrase patterns guard with `(?<![a-z])` / `(?![a-z])` rather than `\b`:
// `\b` counts `_` as a word character and would reject snake_case error codes
// such as `rate_limit_error`, while letter-only guards still keep the phrase
// from matching inside other words ("sepa-rate limits", "unrated").
// The optional suffixes let "rate limited" / "rate limits" / "rate limiter"
// through without reopening the door to arbitrary trailing letters.
const RATE_LIMIT_PHRASE = /(?<![a-z])rate[\s_-]*limit(?:s|ed|ing|er|ers)?(?![a-z])/i;
const TOO_MANY_REQUESTS_PHRASE = /(?<![a-z])too[\s_-]*many[\s_-]*requests(?![a-z])/i;
const QUOTA_EXCEEDED_PHRASE = /(?<![a-z])quota[\s_-]*exceeded(?![a-z])/i;

// SDK exception names and JSON codes are camelCase/PascalCase
// ("RateLimitError", "userRateLimitExceeded", "TooManyRequestsException").
// The letter guards above cannot see a word boundary inside those, so this
// pattern is case-sensitive: a capital letter marks the start of a word, and
// the lowercase form still needs a non-letter before it so "separateLimit"
// stays out.
const CAMEL_CASE_IDENTIFIER =
  /RateLimit|TooManyRequests|QuotaExceeded|(?<![A-Za-z])(?:rateLimit|tooManyRequests|quotaExceeded)/;

// 429 counts only as a standalone status number. A digit or letter on either
// side makes it part of another token ("14290", "id 54291", "1429", "429ms"),
// and a decimal point next to a digit makes it part of a number ("1.429",
// "429.5"). Punctuation is fine: "(429)", "status=429", "HTTP 429.".
const HTTP_429_STATUS = /(?<![a-z\d])(?<!\d\.)429(?!\.\d)(?![a-z\d])/i;

const RATE_LIMIT_PATTERNS: readonly RegExp[] = [
  RATE_LIMIT_PHRASE,
  TOO_MANY_REQUESTS_PHRASE,
  QUOTA_EXCEEDED_PHRASE,
  CAMEL_CASE_IDENTIFIER,
  HTTP_429_STATUS,
];

/** True when the error text reads as a provider rate-limit or quota rejection. */
export function isRateLimitError(text: string): boolean {
  return RATE_LIMIT_PATTERNS.some((pattern) => pattern.test(text));
}

// ---------------------------------------------------------------------------
// Reset-time parsing
// ---------------------------------------------------------------------------

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  msec: 1,
  msecs: 1,
  millisecond: 1,
  milliseconds: 1,
  s: SECOND_MS,
  sec: SECOND_MS,
  secs: SECOND_MS,
  second: SECOND_MS,
  seconds: SECOND_MS,
  m: 60 * SECOND_MS,
  min: 60 * SECOND_MS,
  mins: 60 * SECOND_MS,
  minute: 60 * SECOND_MS,
  minutes: 60 * SECOND_MS,
  h: 3_600 * SECOND_MS,
  hr: 3_600 * SECOND_MS,
  hrs: 3_600 * SECOND_MS,
  hour: 3_600 * SECOND_MS,
  hours: 3_600 * SECOND_MS,
};

// Longest first so the alternation reads naturally; the `(?![a-z])` placed
// after it is what actually stops "m" from matching the start of "minutes".
const UNIT_ALTERNATION = Object.keys(UNIT_MS)
  .sort((a, b) => b.length - a.length)
  .join('|');

// Number then optional unit. `(?![a-z\d])` after the number stops the regex
// engine from backtracking into a shorter prefix ("3600" -> "360") when the
// text after it is not a unit.
const AMOUNT = String.raw`(\d+(?:\.\d+)?)`;
const OPTIONAL_UNIT = String.raw`(?:\s*(${UNIT_ALTERNATION})(?![a-z]))?(?![a-z\d])`;
const REQUIRED_UNIT = String.raw`\s*(${UNIT_ALTERNATION})(?![a-z])`;

// "Retry-After: 3600", "retry-after 60", "retry after 30 seconds", and the
// header echoed inside JSON ("retry_after":"5"). A bare number is seconds, as
// in the HTTP header.
const RETRY_AFTER = new RegExp(
  String.raw`(?<![a-z])retry[\s_-]*after\\?["']?\s*[:=]?\s*\\?["']?${AMOUNT}${OPTIONAL_UNIT}`,
  'i',
);

// "reset_time: 1752624000", "reset_time=...", "reset_time\":..." (JSON that was
// itself embedded in a string, hence the optional backslash).
const RESET_TIME_EPOCH = new RegExp(
  String.raw`(?<![a-z])reset[_-]?time\\?["']?\s*[:=]\s*\\?["']?${AMOUNT}(?!\d)`,
  'i',
);

// "try again in 5 minutes", "retry in 1.5h". The unit is required: a bare
// number here has no conventional meaning.
const TRY_AGAIN_IN = new RegExp(
  String.raw`(?<![a-z])(?:try\s+again|retry)\s+in\s+${AMOUNT}${REQUIRED_UNIT}`,
  'i',
);

// "resets at 4:00 AM", "reset at 4:00:15 pm UTC", "resets at 16:00". The zone
// is always read as UTC, so a trailing "UTC" needs no matching. `(?!\d)` keeps
// "4:001" from reading as 4:00.
const RESETS_AT_CLOCK =
  /(?<![a-z])resets?\s+at\s+(\d{1,2}):(\d{2})(?::(\d{2}))?(?!\d)(?:\s*(am|pm)(?![a-z]))?/i;

// Epoch values with 13+ digits can only be milliseconds: as seconds they
// would land tens of thousands of years out.
const EPOCH_MILLISECONDS_THRESHOLD = 1e12;

type ResetParser = (text: string, now: Date) => Date | null;

// Machine-written fields first: they are exact, whereas the human-facing
// wording ("resets at 4:00 AM") is rounded to the minute.
const RESET_PARSERS: readonly ResetParser[] = [
  parseRetryAfter,
  parseResetTimeEpoch,
  parseTryAgainIn,
  parseResetsAtClock,
];

/**
 * The instant the provider says the limit lifts, with no buffer added, or
 * null when the text names none or its numbers are unusable.
 */
export function parseRateLimitReset(text: string, now: Date): Date | null {
  for (const parse of RESET_PARSERS) {
    const resetAt = parse(text, now);
    if (resetAt !== null) return resetAt;
  }
  return null;
}

function parseRetryAfter(text: string, now: Date): Date | null {
  const match = RETRY_AFTER.exec(text);
  if (!match) return null;
  const unitMs = match[2] === undefined ? SECOND_MS : unitToMs(match[2]);
  return relativeInstant(now, Number(match[1]), unitMs);
}

function parseTryAgainIn(text: string, now: Date): Date | null {
  const match = TRY_AGAIN_IN.exec(text);
  if (!match || match[2] === undefined) return null;
  return relativeInstant(now, Number(match[1]), unitToMs(match[2]));
}

function parseResetTimeEpoch(text: string, _now: Date): Date | null {
  const match = RESET_TIME_EPOCH.exec(text);
  if (!match) return null;
  const value = Number(match[1]);
  const epochMs = value >= EPOCH_MILLISECONDS_THRESHOLD ? value : value * SECOND_MS;
  return instantOrNull(Math.round(epochMs));
}

function parseResetsAtClock(text: string, now: Date): Date | null {
  const match = RESETS_AT_CLOCK.exec(text);
  if (!match) return null;
  const hour = toTwentyFourHour(Number(match[1]), match[4]);
  const minute = Number(match[2]);
  const second = match[3] === undefined ? 0 : Number(match[3]);
  if (hour === null || minute > 59 || second > 59) return null;

  const nowMs = now.getTime();
  const todayMs = Date.UTC(
    now.getUTCFullYear(),
    now.getUTCMonth(),
    now.getUTCDate(),
    hour,
    minute,
    second,
  );
  // A reset time that is not in the future refers to tomorrow's occurrence:
  // providers announce the next reset, never one that already happened.
  return instantOrNull(todayMs > nowMs ? todayMs : todayMs + DAY_MS);
}

/** 24-hour clock hour, or null when the hour is impossible for its clock style. */
function toTwentyFourHour(hour: number, meridiem: string | undefined): number | null {
  if (meridiem === undefined) return hour <= 23 ? hour : null;
  if (hour < 1 || hour > 12) return null;
  const isPm = meridiem.toLowerCase() === 'pm';
  const hourOnTwelveHourClock = hour % 12; // 12 AM is midnight, 12 PM is noon
  return isPm ? hourOnTwelveHourClock + 12 : hourOnTwelveHourClock;
}

function unitToMs(unit: string): number {
  // The regex only captures keys of UNIT_MS, so a miss is a programming error.
  const ms = UNIT_MS[unit.toLowerCase()];
  if (ms === undefined) throw new Error(`Unknown duration unit '${unit}'`);
  return ms;
}

function relativeInstant(now: Date, amount: number, unitMs: number): Date | null {
  if (!Number.isFinite(amount) || amount < 0) return null;
  return instantOrNull(now.getTime() + Math.round(amount * unitMs));
}

/** A Date for the epoch milliseconds, or null when they are not a usable instant. */
function instantOrNull(epochMs: number): Date | null {
  if (!Number.isFinite(epochMs) || epochMs < 0) return null;
  const instant = new Date(epochMs);
  return Number.isNaN(instant.getTime()) ? null : instant;
}
