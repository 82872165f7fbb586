import { describe, expect, it } from 'vitest';
import {
  DEFAULT_NEXT_ACTION,
  NEXT_ACTION_RULES,
  ROUTINE_SUMMARY_SCOPE_PREFIX,
  SUMMARY_MAX_BYTES,
  SUMMARY_PROMPT_SLICE_CHARS,
  buildContinuationSummary,
  parseRecentDecisions,
  routineSummaryScope,
  summaryPromptSlice,
  type ContinuationSummaryInput,
  type SummaryBlocker,
  type SummaryStats,
} from '../../src/domain/summary.js';

const NOW = new Date('2025-03-10T08:00:00Z');

const ZERO_STATS: SummaryStats = {
  tasks_completed: 0,
  tasks_failed: 0,
  agent_errors: 0,
  budget_alerts: 0,
  open_tasks: 0,
};

function makeInput(overrides: Partial<ContinuationSummaryInput> = {}): ContinuationSummaryInput {
  return {
    now: NOW,
    run: { id: 'run-1', status: 'succeeded', result_json: { summary: 'Merged the billing fix' } },
    stats: ZERO_STATS,
    blockers: [],
    previous: null,
    ...overrides,
  };
}

function withStats(stats: Partial<SummaryStats>): ContinuationSummaryInput {
  return makeInput({ stats: { ...ZERO_STATS, ...stats } });
}

function blocker(title: string, blockedBy: string[] = ['Review PR'], since = '2025-03-08T23:59:00Z'): SummaryBlocker {
  return { task_id: `task-${title}`, title, blocked_by_titles: blockedBy, since: new Date(since) };
}

function sectionBody(markdown: string, heading: string): string {
  const start = markdown.indexOf(`${heading}\n`);
  if (start < 0) throw new Error(`missing heading ${heading}`);
  const bodyStart = start + heading.length + 1;
  const nextHeading = markdown.indexOf('\n\n## ', bodyStart);
  return markdown.slice(bodyStart, nextHeading < 0 ? undefined : nextHeading).trimEnd();
}

function decisionsOf(markdown: string): string {
  return sectionBody(markdown, '## Recent decisions');
}

function nextActionOf(input: ContinuationSummaryInput): string {
  return sectionBody(buildContinuationSummary(input), '## Next action');
}

function previousWithDecisions(decisions: string[]): string {
  return [
    '## Active focus',
    'Watching the release train.',
    '',
    '## Open blockers',
    '- None.',
    '',
    '## Recent decisions',
    ...decisions,
    '',
    '## Next action',
    'Continue monitoring.',
    '',
  ].join('\n');
}

describe('routine summary scope', () => {
  it('builds the scope from the shared prefix', () => {
    expect(ROUTINE_SUMMARY_SCOPE_PREFIX).toBe('routine:');
    expect(routineSummaryScope('rt_42')).toBe('routine:rt_42');
  });

  it('rejects an empty routine id rather than producing a scope shared by all routines', () => {
    expect(() => routineSummaryScope('')).toThrow(TypeError);
  });
});

describe('buildContinuationSummary', () => {
  it('renders all four sections in order with exact content', () => {
    const output = buildContinuationSummary(
      makeInput({
        stats: { ...ZERO_STATS, tasks_completed: 2, tasks_failed: 1, open_tasks: 4 },
        blockers: [blocker('Ship v2', ['Review PR', 'Fix CI'])],
      }),
    );
    expect(output).toBe(
      [
        '## Active focus',
        'Watching 4 open tasks; 2 completed and 1 failed recently.',
        'Last run succeeded.',
        '',
        '## Open blockers',
        '- Ship v2 — waiting on Review PR, Fix CI (since 2025-03-08)',
        '',
        '## Recent decisions',
        '- 2025-03-10: Merged the billing fix',
        '',
        '## Next action',
        'Unblock Ship v2.',
        '',
      ].join('\n'),
    );
  });

  it('renders placeholders for empty lists and an attention line for escalations', () => {
    const output = buildContinuationSummary(
      makeInput({
        run: { id: 'run-1', status: 'failed', result_json: {} },
        stats: { ...ZERO_STATS, open_tasks: 1, agent_errors: 2, budget_alerts: 1 },
      }),
    );
    expect(output).toBe(
      [
        '## Active focus',
        'Watching 1 open task; 0 completed and 0 failed recently.',
        'Last run failed.',
        'Needs attention: 2 agent errors and 1 budget alert.',
        '',
        '## Open blockers',
        '- None.',
        '',
        '## Recent decisions',
        '- None.',
        '',
        '## Next action',
        'Triage the agent errors escalated since the last wake.',
        '',
      ].join('\n'),
    );
  });

  it('keeps the previous active focus when nothing happened since the last wake', () => {
    const output = buildContinuationSummary(makeInput({ previous: previousWithDecisions([]) }));
    expect(sectionBody(output, '## Active focus')).toBe('Watching the release train.');
  });

  it('derives active focus from stats when there is no previous summary, even if stats are zero', () => {
    const output = buildContinuationSummary(makeInput());
    expect(sectionBody(output, '## Active focus')).toBe(
      'Watching 0 open tasks; 0 completed and 0 failed recently.\nLast run succeeded.',
    );
  });

  it('collapses multi-line blocker titles so the markdown stays parseable', () => {
    const output = buildContinuationSummary(makeInput({ blockers: [blocker('Ship\n  v2', [])] }));
    expect(sectionBody(output, '## Open blockers')).toBe(
      '- Ship v2 — waiting on an unspecified dependency (since 2025-03-08)',
    );
  });

  describe('decision text fallback chain', () => {
    const decisionFor = (result_json: Record<string, unknown>): string =>
      decisionsOf(buildContinuationSummary(makeInput({ run: { id: 'r', status: 'succeeded', result_json } })));

    it('prefers summary', () => {
      expect(decisionFor({ summary: 'from summary', result: 'from result' })).toBe('- 2025-03-10: from summary');
    });

    it('falls back to result when summary is missing, blank or not a string', () => {
      expect(decisionFor({ result: 'from result', message: 'm' })).toBe('- 2025-03-10: from result');
      expect(decisionFor({ summary: '   ', result: 'from result' })).toBe('- 2025-03-10: from result');
      expect(decisionFor({ summary: 42, result: 'from result' })).toBe('- 2025-03-10: from result');
    });

    it('falls back to message', () => {
      expect(decisionFor({ summary: '', result: null, message: 'from message', error: 'e' })).toBe(
        '- 2025-03-10: from message',
      );
    });

    it('falls back to error', () => {
      expect(decisionFor({ error: 'connection timed out after 30s' })).toBe(
        '- 2025-03-10: connection timed out after 30s',
      );
    });

    it('trims and flattens the text onto one line', () => {
      expect(decisionFor({ summary: '  Shipped\n\n the  fix \t ' })).toBe('- 2025-03-10: Shipped the fix');
    });

    it('clips the text to 200 characters', () => {
      const clipped = decisionFor({ summary: 'x'.repeat(250) }).slice('- 2025-03-10: '.length);
      expect(clipped).toBe(`${'x'.repeat(199)}…`);
      expect(Array.from(clipped)).toHaveLength(200);
    });

    it('keeps previous decisions unchanged when no level of the chain has text', () => {
      const previous = previousWithDecisions(['- 2025-03-09: Paused deploys', '- 2025-03-08: Hired a reviewer']);
      const output = buildContinuationSummary(
        makeInput({ run: { id: 'r', status: 'succeeded', result_json: { summary: '' } }, previous }),
      );
      expect(decisionsOf(output)).toBe('- 2025-03-09: Paused deploys\n- 2025-03-08: Hired a reviewer');
    });
  });

  describe('recent decisions history', () => {
    it('puts the new decision first and carries earlier ones over', () => {
      const previous = previousWithDecisions(['- 2025-03-09: Paused deploys']);
      const output = buildContinuationSummary(makeInput({ previous }));
      expect(decisionsOf(output)).toBe('- 2025-03-10: Merged the billing fix\n- 2025-03-09: Paused deploys');
    });

    it('keeps only the five newest decisions', () => {
      const older = [9, 8, 7, 6, 5].map((day) => `- 2025-03-0${day}: decision ${day}`);
      const output = buildContinuationSummary(makeInput({ previous: previousWithDecisions(older) }));
      expect(parseRecentDecisions(output)).toEqual([
        '- 2025-03-10: Merged the billing fix',
        '- 2025-03-09: decision 9',
        '- 2025-03-08: decision 8',
        '- 2025-03-07: decision 7',
        '- 2025-03-06: decision 6',
      ]);
    });

    it('does not carry the empty-list placeholder over as a decision', () => {
      const output = buildContinuationSummary(makeInput({ previous: previousWithDecisions(['- None.']) }));
      expect(decisionsOf(output)).toBe('- 2025-03-10: Merged the billing fix');
    });

    it('round-trips through its own output across several runs', () => {
      let summary: string | null = null;
      for (let day = 1; day <= 7; day += 1) {
        summary = buildContinuationSummary(
          makeInput({
            now: new Date(Date.UTC(2025, 3, day)),
            run: { id: `run-${day}`, status: 'succeeded', result_json: { result: `step ${day}` } },
            previous: summary,
          }),
        );
      }
      expect(parseRecentDecisions(summary ?? '')).toEqual([
        '- 2025-04-07: step 7',
        '- 2025-04-06: step 6',
        '- 2025-04-05: step 5',
        '- 2025-04-04: step 4',
        '- 2025-04-03: step 3',
      ]);
    });
  });

  describe('next action decision table', () => {
    it('lists the rules in priority order', () => {
      expect(NEXT_ACTION_RULES.map((rule) => rule.name)).toEqual([
        'agent-errors',
        'budget-alerts',
        'last-run-failed',
        'blockers',
        'failed-tasks',
        'open-tasks',
      ]);
    });

    it('triages agent errors first', () => {
      expect(nextActionOf(withStats({ agent_errors: 1, budget_alerts: 3, open_tasks: 2 }))).toBe(
        'Triage the agent errors escalated since the last wake.',
      );
    });

    it('reviews budget when alerts are pending', () => {
      expect(nextActionOf(withStats({ budget_alerts: 1, tasks_failed: 2 }))).toBe(
        'Review budget usage before assigning more work.',
      );
    });

    it('investigates its own failed run before acting on blockers', () => {
      const input = makeInput({
        run: { id: 'r', status: 'failed', result_json: { error: 'boom' } },
        blockers: [blocker('Ship v2')],
      });
      expect(nextActionOf(input)).toBe('Find out why the last run failed before relying on its results.');
    });

    it('unblocks the first blocker', () => {
      const input = makeInput({
        stats: { ...ZERO_STATS, tasks_failed: 1 },
        blockers: [blocker('Ship v2'), blocker('Write docs')],
      });
      expect(nextActionOf(input)).toBe('Unblock Ship v2.');
    });

    it('investigates failed tasks', () => {
      expect(nextActionOf(withStats({ tasks_failed: 1, open_tasks: 3 }))).toBe('Investigate the failed tasks.');
    });

    it('checks progress on open tasks, with correct plurals', () => {
      expect(nextActionOf(withStats({ open_tasks: 3 }))).toBe('Check progress on the 3 open tasks.');
      expect(nextActionOf(withStats({ open_tasks: 1 }))).toBe('Check progress on the 1 open task.');
    });

    it('falls back to monitoring when nothing needs attention', () => {
      expect(DEFAULT_NEXT_ACTION).toBe('Continue monitoring.');
      expect(nextActionOf(withStats({ tasks_completed: 5 }))).toBe('Continue monitoring.');
    });
  });

  describe('size cap', () => {
    const manyBlockers = (count: number, title: (i: number) => string): SummaryBlocker[] =>
      Array.from({ length: count }, (_, i) => blocker(title(i), ['Dep'], '2025-01-01T00:00:00Z'));

    it('drops the oldest decisions first to fit within 8 KB', () => {
      // 47 blockers of this size leave room for exactly three ~165-byte decisions.
      const blockers = manyBlockers(47, (i) => `Blocked task ${String(i).padStart(3, '0')} ${'x'.repeat(100)}`);
      const older = [4, 3, 2, 1].map((day) => `- 2025-01-0${day}: ${String(day).repeat(150)}`);
      const output = buildContinuationSummary(
        makeInput({
          run: { id: 'r', status: 'succeeded', result_json: { summary: 'n'.repeat(150) } },
          blockers,
          previous: previousWithDecisions(older),
        }),
      );
      expect(SUMMARY_MAX_BYTES).toBe(8192);
      expect(Buffer.byteLength(output, 'utf8')).toBeLessThanOrEqual(SUMMARY_MAX_BYTES);
      expect(parseRecentDecisions(output)).toEqual([
        `- 2025-03-10: ${'n'.repeat(150)}`,
        `- 2025-01-04: ${'4'.repeat(150)}`,
        `- 2025-01-03: ${'3'.repeat(150)}`,
      ]);
      expect(output.endsWith('## Next action\nUnblock Blocked task 000 ' + 'x'.repeat(100) + '.\n')).toBe(true);
    });

    it('hard-truncates on a character boundary when the other sections alone are too big', () => {
      // 4-byte emoji make a mid-character cut likely if truncation were byte-based.
      const blockers = manyBlockers(200, (i) => `Task ${i} 😀😀😀 €€€`);
      const output = buildContinuationSummary(makeInput({ blockers }));
      const bytes = Buffer.byteLength(output, 'utf8');
      expect(bytes).toBeLessThanOrEqual(SUMMARY_MAX_BYTES);
      expect(bytes).toBeGreaterThan(SUMMARY_MAX_BYTES - 4);
      expect(Buffer.from(output, 'utf8').toString('utf8')).toBe(output);
      expect(output.startsWith('## Active focus\n')).toBe(true);
      expect(output).not.toContain('## Recent decisions');
    });
  });

  it('is idempotent: identical inputs give identical output', () => {
    const input = makeInput({
      stats: { ...ZERO_STATS, tasks_completed: 1, open_tasks: 2 },
      blockers: [blocker('Ship v2')],
      previous: previousWithDecisions(['- 2025-03-09: Paused deploys']),
    });
    const first = buildContinuationSummary(input);
    const second = buildContinuationSummary(structuredClone(input));
    expect(second).toBe(first);
  });

  it('throws on malformed stats so callers keep the last good summary', () => {
    expect(() => buildContinuationSummary(withStats({ open_tasks: -1 }))).toThrow(TypeError);
    expect(() => buildContinuationSummary(withStats({ tasks_failed: Number.NaN }))).toThrow(TypeError);
  });

  it('throws on an invalid date', () => {
    expect(() => buildContinuationSummary(makeInput({ now: new Date('not a date') }))).toThrow(RangeError);
  });
});

describe('summaryPromptSlice', () => {
  it('returns the first 1,500 characters', () => {
    expect(SUMMARY_PROMPT_SLICE_CHARS).toBe(1500);
    const content = 'a'.repeat(1500) + 'b'.repeat(500);
    expect(summaryPromptSlice(content)).toBe('a'.repeat(1500));
  });

  it('returns short content unchanged', () => {
    expect(summaryPromptSlice('## Active focus\nshort')).toBe('## Active focus\nshort');
  });

  it('never splits a surrogate pair at the boundary', () => {
    expect(summaryPromptSlice(`${'a'.repeat(1499)}😀tail`)).toBe('a'.repeat(1499));
  });
});
