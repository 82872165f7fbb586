/**
 * The catalogues of codes (src/domain/activityCodes.ts, src/domain/errorCodes.ts): tsc already
 * refuses a code written that is not catalogued; these check the other way, that every catalogued code is still written somewhere
 * in src, so an entry whose last writer went away does not linger, and that each has its sentence.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ACTIVITY_CODES, REASON_CODES, reasonClause } from '../../src/domain/activityCodes.js';
import { ERROR_CODES } from '../../src/domain/errorCodes.js';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));
/** The catalogues themselves do not count as a use of their own codes. */
const CATALOGUES = ['domain/activityCodes.ts', 'domain/errorCodes.ts'];

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(path);
    return entry.name.endsWith('.ts') && !CATALOGUES.includes(relative(SRC, path)) ? [path] : [];
  });
}
const source = sourcesUnder(SRC).map((path) => readFileSync(path, 'utf8')).join('\n');

const quoted = (text: string) => [`'${text}'`, `"${text}"`, `\`${text}\``].some((form) => source.includes(form));

/**
 * A code written as a string literal, or composed by a template (`routine_run_${run.status}`) from
 * a prefix and a literal that src also writes ('dispatched').
 */
function isWritten(code: string): boolean {
  if (quoted(code)) return true;
  const prefixes = [...source.matchAll(/`([a-z_]+_)\$\{/g)].map((match) => match[1]!);
  return prefixes.some((prefix) => code.startsWith(prefix) && quoted(code.slice(prefix.length)));
}

/**
 * Codes kept only to be read: no longer written, but older rows still carry them and the explain
 * still words them. checkout_conflict: a checkout conflict used to skip; it now waits (pinned).
 */
const RETIRED = ['checkout_conflict'];

describe.each([
  ['activity codes', ACTIVITY_CODES],
  ['skip and cancel reasons', REASON_CODES],
  ['error codes', ERROR_CODES],
])('the catalogue of %s', (_name, catalogue: Record<string, string>) => {
  it('has no code that src no longer writes, but for the retired ones kept for older rows', () => {
    expect(Object.keys(catalogue).filter((code) => !isWritten(code) && !RETIRED.includes(code))).toEqual([]);
  });

  it('gives every code one sentence: a capital first, a period last', () => {
    const malformed = Object.entries(catalogue).filter(([, sentence]) => !/^[A-Z].*[^.]\.$/s.test(sentence.trim()) || sentence !== sentence.trim());
    expect(malformed).toEqual([]);
  });

  it('spells every code in lower snake case', () => {
    expect(Object.keys(catalogue).filter((code) => !/^[a-z]+(_[a-z]+)*$/.test(code))).toEqual([]);
  });
});

it('a retired code is catalogued and written nowhere', () => {
  for (const code of RETIRED) {
    expect(Object.keys({ ...ACTIVITY_CODES, ...REASON_CODES })).toContain(code);
    expect(isWritten(code)).toBe(false);
  }
});

describe('reasonClause', () => {
  it('reads a reason\'s sentence as the end of another, as a wakeup\'s explain and the dashboard use it', () => {
    expect(`cancelled: ${reasonClause('task_not_found')}`).toBe('cancelled: the task no longer exists');
    expect(`skipped: ${reasonClause('active_run')}`).toBe('skipped: its last fire is still active');
  });
});
