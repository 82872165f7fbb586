/**
 * Deterministic continuation summary for taskless routine runs.
 *
 * A routine run has no task thread to carry context, so after each run we fold
 * the outcome into a small markdown note keyed by (agent, scope) and feed a
 * slice of it into the next wake's prompt. Everything here is pure: the clock
 * comes in through `now`, so replaying the same inputs yields the same bytes.
 */

/**
 * Writer and reader must agree on the scope string byte for byte; they once
 * drifted apart and summaries were silently never read back. Always go through
 * `routineSummaryScope` instead of formatting the scope by hand.
 */
export const ROUTINE_SUMMARY_SCOPE_PREFIX = 'routine:';

export function routineSummaryScope(routineId: string): string {
  if (routineId.length === 0) throw new TypeError('routineId must be non-empty');
  return `${ROUTINE_SUMMARY_SCOPE_PREFIX}${routineId}`;
}

/** Stored summaries are capped so a runaway routine cannot bloat storage or prompts. */
export const SUMMARY_MAX_BYTES = 8192;

/** Only the head of the summary goes into the prompt; the sections are ordered by urgency. */
export const SUMMARY_PROMPT_SLICE_CHARS = 1500;

/** Older decisions stop being useful context quickly; five keeps the note scannable. */
export const MAX_RECENT_DECISIONS = 5;

/** Long results would crowd out the other decisions, so each entry is clipped. */
export const DECISION_TEXT_MAX_CHARS = 200;

export const SUMMARY_HEADINGS = {
  activeFocus: '## Active focus',
  openBlockers: '## Open blockers',
  recentDecisions: '## Recent decisions',
  nextAction: '## Next action',
} as const;

const EMPTY_LIST_BULLET = '- None.';

/** result_json keys tried in order: executors disagree on where the human-readable outcome goes. */
export const DECISION_TEXT_KEYS = ['summary', 'result', 'message', 'error'] as const;

export interface SummaryStats {
  tasks_completed: number;
  tasks_failed: number;
  agent_errors: number;
  budget_alerts: number;
  open_tasks: number;
}

export interface SummaryBlocker {
  task_id: string;
  title: string;
  blocked_by_titles: string[];
  since: Date;
}

export interface SummaryRun {
  id: string;
  status: 'succeeded' | 'failed';
  result_json: Record<string, unknown>;
}

export interface ContinuationSummaryInput {
  now: Date;
  run: SummaryRun;
  stats: SummaryStats;
  blockers: SummaryBlocker[];
  previous: string | null;
}

export interface NextActionContext {
  stats: SummaryStats;
  blockers: SummaryBlocker[];
  runStatus: SummaryRun['status'];
}

export interface NextActionRule {
  readonly name: string;
  readonly applies: (ctx: NextActionContext) => boolean;
  readonly action: (ctx: NextActionContext) => string;
}

export const DEFAULT_NEXT_ACTION = 'Continue monitoring.';

/** Checked top to bottom; the first rule that applies wins. */
export const NEXT_ACTION_RULES: readonly NextActionRule[] = [
  {
    // Escalated agent errors mean some agent is stuck right now; that beats any routine follow-up.
    name: 'agent-errors',
    applies: ({ stats }) => stats.agent_errors > 0,
    action: () => 'Triage the agent errors escalated since the last wake.',
  },
  {
    // Assigning more work while over budget compounds the problem, so money questions come next.
    name: 'budget-alerts',
    applies: ({ stats }) => stats.budget_alerts > 0,
    action: () => 'Review budget usage before assigning more work.',
  },
  {
    // If this routine's own run failed, its view of the workspace may be stale or partial.
    name: 'last-run-failed',
    applies: ({ runStatus }) => runStatus === 'failed',
    action: () => 'Find out why the last run failed before relying on its results.',
  },
  {
    // A blocked task stalls everything downstream of it, so unblocking outranks checking progress.
    name: 'blockers',
    applies: ({ blockers }) => blockers.length > 0,
    action: ({ blockers }) => `Unblock ${singleLine(blockers[0]?.title ?? '')}.`,
  },
  {
    // Failed tasks will not retry themselves forever; someone has to decide retry vs. reassign.
    name: 'failed-tasks',
    applies: ({ stats }) => stats.tasks_failed > 0,
    action: () => 'Investigate the failed tasks.',
  },
  {
    // Nothing is wrong, but open work exists; nudge it along.
    name: 'open-tasks',
    applies: ({ stats }) => stats.open_tasks > 0,
    action: ({ stats }) => `Check progress on the ${pluralize(stats.open_tasks, 'open task')}.`,
  },
];

export function chooseNextAction(ctx: NextActionContext): string {
  const rule = NEXT_ACTION_RULES.find((candidate) => candidate.applies(ctx));
  return rule ? rule.action(ctx) : DEFAULT_NEXT_ACTION;
}

export function buildContinuationSummary(input: ContinuationSummaryInput): string {
  assertValidStats(input.stats);
  const previous = input.previous === null ? null : parseSummarySections(input.previous);

  const activeFocus = buildActiveFocus(input, previous);
  const blockerLines = buildBlockerLines(input.blockers);
  const decisions = buildRecentDecisions(input, previous);
  const nextAction = chooseNextAction({
    stats: input.stats,
    blockers: input.blockers,
    runStatus: input.run.status,
  });

  const render = (keptDecisions: string[]): string =>
    renderSummary({ activeFocus, blockerLines, decisions: keptDecisions, nextAction });
  return fitWithinByteCap(render, decisions);
}

/** Head of the summary for prompt injection, never splitting a surrogate pair. */
export function summaryPromptSlice(content: string): string {
  return truncateUtf16(content, SUMMARY_PROMPT_SLICE_CHARS);
}

/** Lines under each `## ` heading, keyed by the heading line itself. Unknown text is ignored. */
export function parseSummarySections(markdown: string): Map<string, string[]> {
  const sections = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const rawLine of markdown.split(/\r?\n/)) {
    const line = rawLine.trimEnd();
    if (line.startsWith('## ')) {
      current = [];
      sections.set(line, current);
    } else if (current && line.trim().length > 0) {
      current.push(line);
    }
  }
  return sections;
}

/** The Recent decisions bullets of an earlier summary, newest first as written. */
export function parseRecentDecisions(markdown: string): string[] {
  return decisionBullets(parseSummarySections(markdown));
}

function decisionBullets(sections: Map<string, string[]>): string[] {
  const lines = sections.get(SUMMARY_HEADINGS.recentDecisions) ?? [];
  return lines.filter((line) => line.startsWith('- ') && line !== EMPTY_LIST_BULLET);
}

/** First non-empty string along the fallback chain, normalised to one clipped line. */
export function extractDecisionText(resultJson: Record<string, unknown>): string | null {
  for (const key of DECISION_TEXT_KEYS) {
    const value = resultJson[key];
    if (typeof value !== 'string') continue;
    const text = singleLine(value);
    if (text.length > 0) return clipChars(text, DECISION_TEXT_MAX_CHARS);
  }
  return null;
}

export function formatDay(date: Date): string {
  // UTC keeps the stamp independent of the host's timezone, which idempotency requires.
  return date.toISOString().slice(0, 10);
}

interface RenderParts {
  activeFocus: string[];
  blockerLines: string[];
  decisions: string[];
  nextAction: string;
}

function renderSummary(parts: RenderParts): string {
  const section = (heading: string, body: string[]): string => [heading, ...body].join('\n');
  return (
    [
      section(SUMMARY_HEADINGS.activeFocus, parts.activeFocus),
      section(SUMMARY_HEADINGS.openBlockers, orNoneBullet(parts.blockerLines)),
      section(SUMMARY_HEADINGS.recentDecisions, orNoneBullet(parts.decisions)),
      section(SUMMARY_HEADINGS.nextAction, [parts.nextAction]),
    ].join('\n\n') + '\n'
  );
}

function buildActiveFocus(input: ContinuationSummaryInput, previous: Map<string, string[]> | null): string[] {
  const previousFocus = previous?.get(SUMMARY_HEADINGS.activeFocus) ?? [];
  // A quiet wake says nothing new about focus; keep what the agent was already watching.
  if (allStatsZero(input.stats) && previousFocus.length > 0) return previousFocus;

  const { stats } = input;
  const lines = [
    `Watching ${pluralize(stats.open_tasks, 'open task')}; ` +
      `${stats.tasks_completed} completed and ${stats.tasks_failed} failed recently.`,
    `Last run ${input.run.status}.`,
  ];
  const attention = attentionLine(stats);
  if (attention) lines.push(attention);
  return lines;
}

function attentionLine(stats: SummaryStats): string | null {
  const items: string[] = [];
  if (stats.agent_errors > 0) items.push(pluralize(stats.agent_errors, 'agent error'));
  if (stats.budget_alerts > 0) items.push(pluralize(stats.budget_alerts, 'budget alert'));
  return items.length > 0 ? `Needs attention: ${items.join(' and ')}.` : null;
}

function buildBlockerLines(blockers: SummaryBlocker[]): string[] {
  return blockers.map((blocker) => {
    const waitingOn = blocker.blocked_by_titles.map(singleLine).filter((title) => title.length > 0);
    const needed = waitingOn.length > 0 ? waitingOn.join(', ') : 'an unspecified dependency';
    return `- ${singleLine(blocker.title)} — waiting on ${needed} (since ${formatDay(blocker.since)})`;
  });
}

function buildRecentDecisions(input: ContinuationSummaryInput, previous: Map<string, string[]> | null): string[] {
  const previousDecisions = previous === null ? [] : decisionBullets(previous);
  const text = extractDecisionText(input.run.result_json);
  // Nothing to record: leave the history exactly as it was rather than inventing an entry.
  if (text === null) return previousDecisions;
  const entry = `- ${formatDay(input.now)}: ${text}`;
  return [entry, ...previousDecisions].slice(0, MAX_RECENT_DECISIONS);
}

/**
 * Drops the oldest decisions until the rendering fits; if the other sections
 * alone are still too big, cuts the text at the last whole character that fits.
 */
function fitWithinByteCap(render: (decisions: string[]) => string, decisions: string[]): string {
  let kept = decisions;
  let output = render(kept);
  while (utf8Bytes(output) > SUMMARY_MAX_BYTES && kept.length > 0) {
    kept = kept.slice(0, -1);
    output = render(kept);
  }
  return truncateUtf8Bytes(output, SUMMARY_MAX_BYTES);
}

function truncateUtf8Bytes(text: string, maxBytes: number): string {
  if (utf8Bytes(text) <= maxBytes) return text;
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const size = utf8CharBytes(char.codePointAt(0) ?? 0);
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += char.length;
  }
  return text.slice(0, end);
}

function truncateUtf16(text: string, maxUnits: number): string {
  if (text.length <= maxUnits) return text;
  const lastKept = text.charCodeAt(maxUnits - 1);
  const splitsPair = lastKept >= 0xd800 && lastKept <= 0xdbff;
  return text.slice(0, splitsPair ? maxUnits - 1 : maxUnits);
}

/** Clips to at most `max` characters, marking the cut so readers know text is missing. */
function clipChars(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max - 1).join('') + '…';
}

/** Newlines inside a bullet would break the markdown we parse back on the next run. */
function singleLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function orNoneBullet(lines: string[]): string[] {
  return lines.length > 0 ? lines : [EMPTY_LIST_BULLET];
}

function pluralize(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function allStatsZero(stats: SummaryStats): boolean {
  return Object.values(stats).every((value) => value === 0);
}

function assertValidStats(stats: SummaryStats): void {
  for (const [name, value] of Object.entries(stats)) {
    if (!Number.isInteger(value) || value < 0) {
      throw new TypeError(`stats.${name} must be a non-negative integer, got ${String(value)}`);
    }
  }
}

function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Lone surrogates count as 3 bytes, matching the U+FFFD that Buffer encodes them as. */
function utf8CharBytes(codePoint: number): number {
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  if (codePoint < 0x10000) return 3;
  return 4;
}
