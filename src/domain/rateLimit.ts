/**
 * Rate-limit detection and reset-time parsing for failed agent runs.
 *
 * Limit texts are data: each form a provider or an agent program prints is one entry of
 * LIMIT_FORMS, with a recorded sample and the public source it was taken from. A new form is a new
 * entry (and a test named after it); nothing else changes.
 *
 * Pure: no I/O and no clock reads. Callers pass `now` and the host's time zone, so the same error
 * text always yields the same schedule in tests, replays and simulations.
 */
import { DateTime } from 'luxon';

/**
 * Seconds added on top of a parsed reset instant before retrying. Providers
 * print reset times rounded to the minute and their clocks drift from ours,
 * so waking exactly at the advertised instant often hits the limit again and
 * wastes one of the few retries a run gets.
 */
export const RATE_LIMIT_BUFFER_SEC_DEFAULT = 30;

const SECOND_MS = 1_000;

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

// The agent programs' own words for a subscription or plan limit: Claude Code's "You've hit your
// limit", "You've hit your session limit", "Claude AI usage limit reached"; Codex's "You've hit
// your usage limit" and `usage_limit_reached`; Gemini CLI's "Your quota will reset after …" and
// Google's RESOURCE_EXHAUSTED status. A bare "limit reached" is not among them: "max turns limit
// reached" is not a quota.
const USAGE_LIMIT_PHRASE = /(?<![a-z])usage[\s_-]*limit(?:s)?(?![a-z])/i;
const HIT_YOUR_LIMIT_PHRASE = /(?<![a-z])hit\s+your\s+(?:[a-z0-9-]+\s+){0,2}limit(?![a-z])/i;
const PLAN_LIMIT_PHRASE = /(?<![a-z])(?:session|weekly|daily|5-hour|five-hour|opus|sonnet)\s+limit\s+(?:reached|exceeded|hit)(?![a-z])/i;
const QUOTA_RESET_PHRASE = /(?<![a-z])quota\s+will\s+reset(?![a-z])|(?<![a-z])exhausted\s+your\s+(?:[a-z]+\s+)?(?:quota|capacity)(?![a-z])/i;
const RESOURCE_EXHAUSTED = /(?<![a-z])resource[\s_-]*exhausted(?![a-z])/i;

// SDK exception names and JSON codes are camelCase/PascalCase
// ("RateLimitError", "userRateLimitExceeded", "TooManyRequestsException",
// Gemini CLI's "TerminalQuotaError"). The letter guards above cannot see a word
// boundary inside those, so this pattern is case-sensitive: a capital letter
// marks the start of a word, and the lowercase form still needs a non-letter
// before it so "separateLimit" stays out.
const CAMEL_CASE_IDENTIFIER =
  /RateLimit|TooManyRequests|QuotaExceeded|QuotaError|(?<![A-Za-z])(?:rateLimit|tooManyRequests|quotaExceeded)/;

// 429 counts only as a standalone status number. A digit or letter on either
// side makes it part of another token ("14290", "id 54291", "1429", "429ms"),
// and a decimal point next to a digit makes it part of a number ("1.429",
// "429.5"). Punctuation is fine: "(429)", "status=429", "HTTP 429.".
const HTTP_429_STATUS = /(?<![a-z\d])(?<!\d\.)429(?!\.\d)(?![a-z\d])/i;

const RATE_LIMIT_PATTERNS: readonly RegExp[] = [
  RATE_LIMIT_PHRASE,
  TOO_MANY_REQUESTS_PHRASE,
  QUOTA_EXCEEDED_PHRASE,
  USAGE_LIMIT_PHRASE,
  HIT_YOUR_LIMIT_PHRASE,
  PLAN_LIMIT_PHRASE,
  QUOTA_RESET_PHRASE,
  RESOURCE_EXHAUSTED,
  CAMEL_CASE_IDENTIFIER,
  HTTP_429_STATUS,
];

/** True when the error text reads as a provider rate-limit or quota rejection. */
export function isRateLimitError(text: string): boolean {
  return RATE_LIMIT_PATTERNS.some((pattern) => pattern.test(text));
}

// ---------------------------------------------------------------------------
// Reset-time parsing: the forms
// ---------------------------------------------------------------------------

/** What a form needs besides its match: the moment of the failure and the zone of a clock time that names none. */
export interface ReadContext {
  nowMs: number;
  /** The scheduler host's IANA time zone: "try again at 3:35 AM" is the host's 3:35. */
  hostZone: string;
}

/** A form's reading: the reset instant, or why the text names no usable one (a DST gap, an impossible time). */
export type FormReading = { at: number } | { unusable: string };

export interface LimitForm {
  /** The form's name, as logs and tests call it. */
  name: string;
  /** A message as the program prints it. */
  sample: string;
  /** Where that wording comes from. */
  source: string;
  pattern: RegExp;
  read(match: RegExpExecArray, context: ReadContext): FormReading;
}

/** A reset found in a text: its form and its instant, or why it is not a reset time. */
export type ResetReading =
  | { form: string; at: Date }
  | { form: string; unusable: string };

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1, msec: 1, msecs: 1, millisecond: 1, milliseconds: 1,
  s: SECOND_MS, sec: SECOND_MS, secs: SECOND_MS, second: SECOND_MS, seconds: SECOND_MS,
  m: 60 * SECOND_MS, min: 60 * SECOND_MS, mins: 60 * SECOND_MS, minute: 60 * SECOND_MS, minutes: 60 * SECOND_MS,
  h: 3_600 * SECOND_MS, hr: 3_600 * SECOND_MS, hrs: 3_600 * SECOND_MS, hour: 3_600 * SECOND_MS, hours: 3_600 * SECOND_MS,
  d: 86_400 * SECOND_MS, day: 86_400 * SECOND_MS, days: 86_400 * SECOND_MS,
};

// Longest first so the alternation reads naturally; the `(?![a-z])` placed
// after it is what actually stops "m" from matching the start of "minutes".
const UNIT_ALTERNATION = Object.keys(UNIT_MS).sort((a, b) => b.length - a.length).join('|');

// Number then optional unit. `(?![a-z\d])` after the number stops the regex
// engine from backtracking into a shorter prefix ("3600" -> "360") when the
// text after it is not a unit.
const AMOUNT = String.raw`(\d+(?:\.\d+)?)`;
const OPTIONAL_UNIT = String.raw`(?:\s*(${UNIT_ALTERNATION})(?![a-z]))?(?![a-z\d])`;

/**
 * A duration of one or more parts, each a number and a unit: "5 minutes", "12.5s", "1h49m8s",
 * "3 days 6 hours 57 minutes", "2 hours and 5 minutes". The unit is required: a bare number after
 * "try again in" has no conventional meaning.
 */
const DURATION_PART = String.raw`\d+(?:\.\d+)?\s*(?:${UNIT_ALTERNATION})(?![a-z])`;
const DURATION = String.raw`(${DURATION_PART}(?:\s*(?:,|and)?\s*${DURATION_PART})*)`;
const DURATION_PART_GLOBAL = new RegExp(String.raw`(\d+(?:\.\d+)?)\s*(${UNIT_ALTERNATION})(?![a-z])`, 'gi');

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH = String.raw`(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?`;
/** "Aug 8th, 2026", "Dec 8", "Oct 9, 2026": month, day with an optional ordinal, an optional year. */
const DATE = String.raw`${MONTH}\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?`;
/** "5pm", "3:10pm", "3:35 AM", "16:00", "4:00:15 PM": a clock needs minutes or a meridiem, so "resets 5" is not a time. */
const CLOCK = String.raw`(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*(am|pm)?(?![a-z\d])`;
/** An IANA zone in parentheses, as Claude Code prints it: "(Europe/Warsaw)", "(America/Argentina/Buenos_Aires)", "(UTC)". */
const PAREN_ZONE = String.raw`\s*\(\s*([A-Za-z_]+(?:\/[A-Za-z0-9_+-]+)*)\s*\)`;
/** A trailing UTC or GMT word, as in the spec's "resets at 4:00 AM UTC". */
const UTC_WORD = String.raw`\s+(utc|gmt)(?![a-z])`;

// Epoch values with 13+ digits can only be milliseconds: as seconds they
// would land tens of thousands of years out.
const EPOCH_MILLISECONDS_THRESHOLD = 1e12;

/**
 * Every form, in the order they are tried. Machine-written fields come first: they are exact,
 * whereas the human-facing wording ("resets 5pm") is rounded to the minute or the hour.
 */
export const LIMIT_FORMS: readonly LimitForm[] = [
  {
    name: 'retry_after',
    sample: 'rate_limit_error: Retry-After: 3600',
    source: 'spec/office-scheduler.md, "Reset-time patterns"; the HTTP Retry-After header echoed in an error body',
    pattern: new RegExp(String.raw`(?<![a-z])retry[\s_-]*after\\?["']?\s*[:=]?\s*\\?["']?${AMOUNT}${OPTIONAL_UNIT}`, 'i'),
    read: (m, c) => relative(c, Number(m[1]), m[2] === undefined ? SECOND_MS : unitToMs(m[2])),
  },
  {
    name: 'reset_time_epoch',
    sample: 'rate limit exceeded, reset_time: 1752624000',
    source: 'spec/office-scheduler.md, "Reset-time patterns"',
    pattern: new RegExp(String.raw`(?<![a-z])reset[_-]?time\\?["']?\s*[:=]\s*\\?["']?${AMOUNT}(?!\d)`, 'i'),
    read: (m) => epoch(Number(m[1])),
  },
  {
    name: 'resets_at_epoch',
    sample: '{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1767225600}}',
    source: "Claude Code's stream-json rate_limit_event (anthropics/claude-code; API.md, \"Agent CLIs\")",
    pattern: /(?<![a-z])resets[_-]?at\\?["']?\s*[:=]\s*\\?["']?(\d{9,13})(?!\d)/i,
    read: (m) => epoch(Number(m[1])),
  },
  {
    name: 'usage_limit_epoch',
    sample: 'Claude AI usage limit reached|1750708800',
    source: 'Claude Code, printed on a subscription limit (anthropics/claude-code issues, e.g. #2087 and #9236)',
    pattern: /usage\s+limit\s+reached\s*\|\s*(\d{9,13})(?!\d)/i,
    read: (m) => epoch(Number(m[1])),
  },
  {
    name: 'retry_delay_field',
    sample: '{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"41s"}]}}',
    source: "Google's google.rpc.RetryInfo detail of a RESOURCE_EXHAUSTED error, which Gemini CLI prints (google-gemini/gemini-cli)",
    pattern: /retry[_-]?delay\\?["']?\s*[:=]\s*\\?["']?(\d+(?:\.\d+)?)s(?![a-z])/i,
    read: (m, c) => relative(c, Number(m[1]), SECOND_MS),
  },
  {
    name: 'duration',
    sample: "You've hit your usage limit. Upgrade to Pro or try again in 3 days 6 hours 57 minutes.",
    source: 'Codex CLI (openai/codex, codex-rs usage-limit error); "try again in 5 minutes" and "retry in 12.5s" as in the spec and Gemini CLI; Gemini CLI\'s "Your quota will reset after 1h49m8s."',
    pattern: new RegExp(String.raw`(?<![a-z])(?:(?:please\s+)?try\s+again|retry(?:ing)?|resets?|available\s+again)\s+(?:in|after)\s+${DURATION}`, 'i'),
    read: (m, c) => relativeDuration(c, m[1]!),
  },
  {
    name: 'clock_with_zone',
    sample: "You've hit your limit · resets 5pm (Europe/Warsaw)",
    source: "Claude Code's subscription limit message (anthropics/claude-code issues); also the session and weekly forms",
    pattern: new RegExp(String.raw`(?<![a-z])resets?\s+(?:at\s+|on\s+)?(?:${DATE}\s*,?\s*(?:at\s+)?)?${CLOCK}${PAREN_ZONE}`, 'i'),
    read: (m, c) => zonedClock(c, { month: m[1], day: m[2], year: m[3] }, clockOf(m, 4), m[8]!),
  },
  {
    name: 'clock_utc',
    sample: 'rate_limit_error: resets at 4:00 AM UTC',
    source: 'spec/office-scheduler.md, "Reset-time patterns" and its scenario',
    pattern: new RegExp(String.raw`(?<![a-z])resets?\s+at\s+${CLOCK}${UTC_WORD}`, 'i'),
    read: (m, c) => zonedClock(c, {}, clockOf(m, 1), 'UTC'),
  },
  {
    name: 'regain_access_date',
    sample: 'API Error: 400 You have reached your specified API usage limits. You will regain access on 2026-04-01 at 00:00 UTC.',
    source: "The Anthropic API's answer when a workspace's spend limit is reached, as Claude Code prints it (anthropics/claude-code issue #38035)",
    pattern: /regain\s+access\s+on\s+(\d{4})-(\d{2})-(\d{2})\s+at\s+(\d{1,2}):(\d{2})\s+(?:utc|gmt)(?![a-z])/i,
    read: (m) => localInstant({ year: Number(m[1]), month: Number(m[2]), day: Number(m[3]), hour: Number(m[4]), minute: Number(m[5]), second: 0 }, 'UTC', `${m[4]}:${m[5]} in UTC`),
  },
  {
    name: 'date_clock_host_zone',
    sample: "You've hit your usage limit. Upgrade to Plus or try again at Aug 8th, 2026 12:30 PM.",
    source: 'Codex CLI, a reset on another day, formatted in the local time zone (openai/codex, codex-rs/core/src/error.rs); Claude Code\'s weekly "resets Sep 15 at 7pm" with no zone (anthropics/claude-code issue #92834)',
    pattern: new RegExp(String.raw`(?<![a-z])(?:(?:try\s+again|retry)\s+(?:at|on)|resets?(?:\s+(?:at|on))?)\s+${DATE}\s*,?\s*(?:at\s+)?${CLOCK}`, 'i'),
    read: (m, c) => zonedClock(c, { month: m[1], day: m[2], year: m[3] }, clockOf(m, 4), c.hostZone),
  },
  {
    name: 'clock_host_zone',
    sample: "You've hit your usage limit. Upgrade to Plus or try again at 3:35 AM.",
    source: 'Codex CLI, a reset later the same day, in the local time zone (openai/codex, codex-rs/core/src/error.rs); the spec\'s "resets at HH:MM AM/PM"',
    pattern: new RegExp(String.raw`(?<![a-z])(?:(?:try\s+again|retry)\s+at|resets?(?:\s+at)?)\s+${CLOCK}`, 'i'),
    read: (m, c) => zonedClock(c, {}, clockOf(m, 1), c.hostZone),
  },
];

/** The largest instant a Date holds (ECMA-262: ±8.64e15 ms). */
const MAX_INSTANT_MS = 8.64e15;

/**
 * The first form the text matches, with its reset or why it names none. A form whose numbers are
 * unusable (an overflowing duration) counts as no match, so a later form may still read the text;
 * a time the clock never shows (a DST gap, "13pm") ends the search: a later, vaguer form would read
 * the same words in another zone. Null when no form matches.
 */
export function readRateLimitReset(text: string, now: Date, hostZone = 'UTC'): ResetReading | null {
  const context: ReadContext = { nowMs: now.getTime(), hostZone };
  for (const form of LIMIT_FORMS) {
    const match = form.pattern.exec(text);
    if (!match) continue;
    const reading = form.read(match, context);
    if ('unusable' in reading) return { form: form.name, unusable: reading.unusable };
    if (Number.isFinite(reading.at) && reading.at >= 0 && reading.at <= MAX_INSTANT_MS) return { form: form.name, at: new Date(reading.at) };
  }
  return null;
}

/**
 * The instant the provider says the limit lifts, with no buffer added, or
 * null when the text names none or its numbers are unusable.
 */
export function parseRateLimitReset(text: string, now: Date, hostZone = 'UTC'): Date | null {
  const reading = readRateLimitReset(text, now, hostZone);
  return reading && 'at' in reading ? reading.at : null;
}

// ---------------------------------------------------------------------------
// Reading helpers
// ---------------------------------------------------------------------------

function unitToMs(unit: string): number {
  // The regex only captures keys of UNIT_MS, so a miss is a programming error.
  const ms = UNIT_MS[unit.toLowerCase()];
  if (ms === undefined) throw new Error(`Unknown duration unit '${unit}'`);
  return ms;
}

const NOT_AN_INSTANT: FormReading = { at: Number.NaN };

function relative(context: ReadContext, amount: number, unitMs: number): FormReading {
  if (!Number.isFinite(amount) || amount < 0) return NOT_AN_INSTANT;
  return { at: context.nowMs + Math.round(amount * unitMs) };
}

function relativeDuration(context: ReadContext, text: string): FormReading {
  let total = 0;
  for (const part of text.matchAll(DURATION_PART_GLOBAL)) total += Number(part[1]) * unitToMs(part[2]!);
  return relative(context, total, 1);
}

function epoch(value: number): FormReading {
  return { at: Math.round(value >= EPOCH_MILLISECONDS_THRESHOLD ? value : value * SECOND_MS) };
}

interface ClockTime {
  hour: string;
  minute: string | undefined;
  second: string | undefined;
  meridiem: string | undefined;
}

function clockOf(match: RegExpExecArray, first: number): ClockTime {
  return { hour: match[first]!, minute: match[first + 1], second: match[first + 2], meridiem: match[first + 3] };
}

/**
 * A wall-clock time (and maybe a date) in `zone`, at its next occurrence after now: today's (or
 * that date's) if still ahead, else tomorrow's (or next year's). A time the zone skips that day
 * (a daylight-saving gap) or one no clock shows ("13pm", "4:60") is not a reset time.
 */
function zonedClock(context: ReadContext, date: { month?: string | undefined; day?: string | undefined; year?: string | undefined }, clock: ClockTime, zone: string): FormReading {
  const time = wallTime(clock);
  if (time === null) return NOT_AN_INSTANT;
  if ('unusable' in time) return time;
  const now = DateTime.fromMillis(context.nowMs, { zone });
  if (!now.isValid) return { unusable: `unknown time zone '${zone}'` };
  const label = `${clockLabel(clock)} in ${zone}`;
  if (date.month !== undefined) {
    const month = MONTHS.indexOf(date.month.slice(0, 3).toLowerCase()) + 1;
    const day = Number(date.day);
    const explicitYear = date.year !== undefined ? Number(date.year) : null;
    const candidate = localInstant({ year: explicitYear ?? now.year, month, day, ...time }, zone, label);
    if (explicitYear !== null || 'unusable' in candidate || candidate.at > context.nowMs) return candidate;
    return localInstant({ year: now.year + 1, month, day, ...time }, zone, label);
  }
  const today = localInstant({ year: now.year, month: now.month, day: now.day, ...time }, zone, label);
  if ('unusable' in today || today.at > context.nowMs) return today;
  // A reset time that is not in the future refers to the next day's occurrence:
  // providers announce the next reset, never one that already happened.
  const tomorrow = now.plus({ days: 1 });
  return localInstant({ year: tomorrow.year, month: tomorrow.month, day: tomorrow.day, ...time }, zone, label);
}

/** The instant of a local date and time in `zone`; unusable when the zone skips it or the date does not exist. */
function localInstant(fields: { year: number; month: number; day: number; hour: number; minute: number; second: number }, zone: string, label: string): FormReading {
  const local = DateTime.fromObject(fields, { zone });
  const date = `${fields.year}-${String(fields.month).padStart(2, '0')}-${String(fields.day).padStart(2, '0')}`;
  if (!local.isValid) return { unusable: `${label} on ${date} is not a date` };
  // Luxon moves a time inside a gap forward by the gap; a moved time is one the clock never shows.
  if (local.hour !== fields.hour || local.minute !== fields.minute || local.day !== fields.day) {
    return { unusable: `${label} does not exist on ${date} (a daylight-saving gap)` };
  }
  return { at: local.toMillis() };
}

/** Hour, minute and second on a 24-hour clock, or why no clock shows that time; null for a bare number, which is no clock at all. */
function wallTime(clock: ClockTime): { hour: number; minute: number; second: number } | { unusable: string } | null {
  const hour = Number(clock.hour);
  const minute = clock.minute === undefined ? 0 : Number(clock.minute);
  const second = clock.second === undefined ? 0 : Number(clock.second);
  const impossible = { unusable: `${clockLabel(clock)} is not a time of day` };
  if (minute > 59 || second > 59) return impossible;
  if (clock.meridiem === undefined) {
    // A bare number ("resets 3 times") is no clock: only a meridiem or minutes make one.
    if (clock.minute === undefined) return null;
    if (hour > 23) return impossible;
    return { hour, minute, second };
  }
  if (hour < 1 || hour > 12) return impossible;
  const hourOnTwelveHourClock = hour % 12; // 12 AM is midnight, 12 PM is noon
  return { hour: clock.meridiem.toLowerCase() === 'pm' ? hourOnTwelveHourClock + 12 : hourOnTwelveHourClock, minute, second };
}

function clockLabel(clock: ClockTime): string {
  const minutes = clock.minute === undefined ? '' : `:${clock.minute}${clock.second === undefined ? '' : `:${clock.second}`}`;
  return `${clock.hour}${minutes}${clock.meridiem ? ` ${clock.meridiem.toUpperCase()}` : ''}`;
}
