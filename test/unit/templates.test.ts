import { describe, expect, it } from 'vitest';
import { nextFireAfter } from '../../src/domain/cron.js';
import {
  BUILTIN_VARIABLES,
  VariableDeclSchema,
  VariableDeclsSchema,
  autoDeclare,
  builtinValues,
  extractPlaceholders,
  renderTemplate,
  resolveVariables,
  type VariableDecl,
} from '../../src/domain/templates.js';

const NOW = new Date('2026-04-25T09:00:00Z');

function issueMessages(result: { success: boolean; error?: { issues: { message: string }[] } }): string[] {
  return result.error?.issues.map((issue) => issue.message) ?? [];
}

describe('VariableDeclSchema', () => {
  it('parses a declaration and defaults required to false', () => {
    expect(VariableDeclSchema.parse({ name: 'reason', type: 'text' })).toEqual({
      name: 'reason',
      type: 'text',
      required: false,
    });
  });

  it('accepts a select with options and a default among them', () => {
    const decl = { name: 'env', type: 'select', options: ['staging', 'prod'], default: 'prod', required: true };
    expect(VariableDeclSchema.parse(decl)).toEqual(decl);
  });

  it('rejects a name that is not an identifier, naming it', () => {
    const result = VariableDeclSchema.safeParse({ name: '1st-try', type: 'text' });
    expect(result.success).toBe(false);
    expect(issueMessages(result)).toEqual([
      'variable name "1st-try" must be an identifier (letters, digits, _; not starting with a digit)',
    ]);
  });

  it('rejects an unknown type', () => {
    expect(VariableDeclSchema.safeParse({ name: 'x', type: 'date' }).success).toBe(false);
  });

  it('requires non-empty options for select', () => {
    expect(issueMessages(VariableDeclSchema.safeParse({ name: 'env', type: 'select' }))).toEqual([
      "select variable 'env' needs a non-empty 'options' list",
    ]);
    expect(issueMessages(VariableDeclSchema.safeParse({ name: 'env', type: 'select', options: [] }))).toEqual([
      "select variable 'env' needs a non-empty 'options' list",
    ]);
  });

  it('rejects a default that does not fit the type', () => {
    expect(issueMessages(VariableDeclSchema.safeParse({ name: 'n', type: 'number', default: 'many' }))).toEqual([
      "variable 'n' expects a number, got 'many' (declared default)",
    ]);
    expect(
      issueMessages(VariableDeclSchema.safeParse({ name: 'env', type: 'select', options: ['a'], default: 'b' })),
    ).toEqual(["variable 'env' must be one of 'a', got 'b' (declared default)"]);
  });

  it('allows a null default (no default)', () => {
    expect(VariableDeclSchema.safeParse({ name: 'n', type: 'number', default: null }).success).toBe(true);
  });
});

describe('VariableDeclsSchema', () => {
  it('rejects duplicate names, naming the duplicate', () => {
    const result = VariableDeclsSchema.safeParse([
      { name: 'branch', type: 'text' },
      { name: 'count', type: 'number' },
      { name: 'branch', type: 'text' },
    ]);
    expect(result.success).toBe(false);
    expect(issueMessages(result)).toEqual(["duplicate variable name 'branch'"]);
    expect(result.error?.issues[0]?.path).toEqual([2, 'name']);
  });

  it('accepts unique names', () => {
    expect(VariableDeclsSchema.parse([{ name: 'a', type: 'text' }, { name: 'b', type: 'boolean' }])).toHaveLength(2);
  });
});

describe('extractPlaceholders', () => {
  it('finds unique names in order, allowing spaces inside the braces', () => {
    expect(extractPlaceholders('Hi {{ name }}, {{name}} on {{branch}} at {{  date  }} {{ name}}')).toEqual([
      'name',
      'branch',
      'date',
    ]);
  });

  it('ignores text that is not an identifier placeholder', () => {
    expect(extractPlaceholders('{{ not valid }} {{1x}} {{}} {single} {{ ok_1 }}')).toEqual(['ok_1']);
  });
});

describe('builtinValues', () => {
  it(`provides ${BUILTIN_VARIABLES.join(' and ')} as 'YYYY-MM-DD' and 'YYYY-MM-DD HH:MM'`, () => {
    expect(builtinValues(NOW, 'UTC')).toEqual({ date: '2026-04-25', datetime: '2026-04-25 09:00' });
  });

  it('reads the wall clock of the given zone', () => {
    const instant = new Date('2026-04-25T02:30:00Z');
    expect(builtinValues(instant, 'America/New_York')).toEqual({ date: '2026-04-24', datetime: '2026-04-24 22:30' });
    expect(builtinValues(new Date('2026-04-25T20:00:00Z'), 'Asia/Kolkata')).toEqual({
      date: '2026-04-26',
      datetime: '2026-04-26 01:30',
    });
  });

  it('prints midnight as 00:00', () => {
    expect(builtinValues(new Date('2026-01-05T00:00:00Z'), 'UTC').datetime).toBe('2026-01-05 00:00');
  });

  it('throws on an invalid zone, naming it', () => {
    expect(() => builtinValues(NOW, 'Nowhere/City')).toThrow("builtinValues: invalid time zone 'Nowhere/City'");
  });
});

describe('autoDeclare', () => {
  it('appends undeclared placeholders as optional text, skipping builtins and declared names', () => {
    const decls: VariableDecl[] = [{ name: 'reason', type: 'text', required: true }];
    expect(autoDeclare(decls, ['{{branch}} on {{date}} because {{reason}}', '{{ author }} and {{branch}}'])).toEqual([
      { name: 'reason', type: 'text', required: true },
      { name: 'branch', type: 'text', required: false },
      { name: 'author', type: 'text', required: false },
    ]);
  });

  it('returns the declarations unchanged when nothing is new', () => {
    const decls: VariableDecl[] = [{ name: 'a', type: 'number' }];
    expect(autoDeclare(decls, ['{{a}} {{datetime}}'])).toEqual(decls);
  });
});

describe('resolveVariables', () => {
  it('resolves builtins, then defaults, then provided values (later wins)', () => {
    const decls: VariableDecl[] = [
      { name: 'count', type: 'number', default: 3 },
      { name: 'env', type: 'select', options: ['staging', 'prod'], default: 'staging' },
      { name: 'date', type: 'text', default: 'overridden-by-default' },
    ];
    expect(resolveVariables(decls, { env: 'prod' }, NOW, 'UTC')).toEqual({
      ok: true,
      values: { date: 'overridden-by-default', datetime: '2026-04-25 09:00', count: 3, env: 'prod' },
    });
  });

  it('coerces provided values by type', () => {
    const decls: VariableDecl[] = [
      { name: 'n', type: 'number' },
      { name: 'flag', type: 'boolean' },
      { name: 'off', type: 'boolean' },
      { name: 'label', type: 'text' },
      { name: 'tier', type: 'select', options: ['1', '2'] },
    ];
    const result = resolveVariables(decls, { n: ' 42.5 ', flag: 'true', off: false, label: 7, tier: 2 }, NOW, 'UTC');
    expect(result).toEqual({
      ok: true,
      values: { date: '2026-04-25', datetime: '2026-04-25 09:00', n: 42.5, flag: true, off: false, label: '7', tier: '2' },
    });
  });

  it('reports every value that does not fit its type, naming the variable and value', () => {
    const decls: VariableDecl[] = [
      { name: 'n', type: 'number' },
      { name: 'flag', type: 'boolean' },
      { name: 'env', type: 'select', options: ['staging', 'prod'] },
      { name: 'label', type: 'text' },
    ];
    const result = resolveVariables(decls, { n: 'abc', flag: 'yes', env: 'dev', label: { a: 1 } }, NOW, 'UTC');
    expect(result).toEqual({
      ok: false,
      errors: [
        { name: 'n', message: "variable 'n' expects a number, got 'abc' (provided value)" },
        { name: 'flag', message: "variable 'flag' expects true or false, got 'yes' (provided value)" },
        { name: 'env', message: "variable 'env' must be one of 'staging', 'prod', got 'dev' (provided value)" },
        { name: 'label', message: "variable 'label' expects text, got an object (provided value)" },
      ],
    });
  });

  it('rejects non-finite numbers and blank numeric strings', () => {
    const decls: VariableDecl[] = [{ name: 'n', type: 'number' }, { name: 'm', type: 'number' }];
    const result = resolveVariables(decls, { n: Number.POSITIVE_INFINITY, m: '  ' }, NOW, 'UTC');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.map((error) => error.name)).toEqual(['n', 'm']);
  });

  it('reports a missing required variable by name', () => {
    const decls: VariableDecl[] = [
      { name: 'reason', type: 'text', required: true },
      { name: 'ticket', type: 'text', required: true, default: 'OPS-1' },
    ];
    expect(resolveVariables(decls, {}, NOW, 'UTC')).toEqual({
      ok: false,
      errors: [{ name: 'reason', message: "missing required variable 'reason'" }],
    });
  });

  it('treats a provided null as absent, so the default applies', () => {
    const decls: VariableDecl[] = [{ name: 'count', type: 'number', default: 1 }];
    const result = resolveVariables(decls, { count: null }, NOW, 'UTC');
    expect(result.ok && result.values.count).toBe(1);
  });

  it('keeps undeclared primitive values and drops objects and arrays', () => {
    const result = resolveVariables(
      [],
      { branch: 'release/2.0', pr: 17, merged: true, sender: { login: 'x' }, commits: ['a'] },
      NOW,
      'UTC',
    );
    expect(result).toEqual({
      ok: true,
      values: { date: '2026-04-25', datetime: '2026-04-25 09:00', branch: 'release/2.0', pr: 17, merged: true },
    });
  });

  it('keeps a provided __proto__ key as plain data', () => {
    const provided = JSON.parse('{"__proto__": "x"}') as Record<string, unknown>;
    const result = resolveVariables([], provided, NOW, 'UTC');
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(Object.getPrototypeOf(result.values)).toBe(Object.prototype);
      expect(Object.hasOwn(result.values, '__proto__')).toBe(true);
    }
  });
});

describe('renderTemplate', () => {
  it('replaces placeholders, with or without inner spaces', () => {
    expect(renderTemplate('{{ greeting }}, {{name}}! ({{n}}, {{ok}})', { greeting: 'Hi', name: 'Ada', n: 2, ok: false })).toBe(
      'Hi, Ada! (2, false)',
    );
  });

  it('leaves unresolved placeholders as written', () => {
    expect(renderTemplate('Deploy {{ branch }} to {{env}}', { env: 'prod' })).toBe('Deploy {{ branch }} to prod');
    expect(renderTemplate('{{obj}} {{nothing}}', { obj: { a: 1 }, nothing: null })).toBe('{{obj}} {{nothing}}');
  });

  it('does not resolve names from Object.prototype', () => {
    expect(renderTemplate('{{constructor}} {{toString}}', {})).toBe('{{constructor}} {{toString}}');
  });

  it('does not expand placeholders inside substituted values', () => {
    expect(renderTemplate('{{a}} {{b}}', { a: '{{b}}', b: 'B' })).toBe('{{b}} B');
  });
});

describe('spec scenarios', () => {
  it("heavy routine 'Daily Dep Update' (cron 0 9 * * *, UTC) titles its task 'Daily Dep Update - 2026-04-25'", () => {
    const fire = nextFireAfter('0 9 * * *', 'UTC', new Date('2026-04-25T08:00:00Z'));
    expect(fire?.toISOString()).toBe('2026-04-25T09:00:00.000Z');
    const resolved = resolveVariables([], {}, fire as Date, 'UTC');
    expect(resolved.ok).toBe(true);
    if (resolved.ok) {
      expect(renderTemplate('Daily Dep Update - {{date}}', resolved.values)).toBe('Daily Dep Update - 2026-04-25');
    }
  });

  it("webhook payload {branch: 'release/2.0'} resolves {{branch}}", () => {
    const template = 'Cut release from {{ branch }}';
    const decls = autoDeclare([], [template]);
    expect(decls).toEqual([{ name: 'branch', type: 'text', required: false }]);
    const resolved = resolveVariables(decls, { branch: 'release/2.0', repository: { name: 'app' } }, NOW, 'UTC');
    expect(resolved.ok).toBe(true);
    if (resolved.ok) expect(renderTemplate(template, resolved.values)).toBe('Cut release from release/2.0');
  });
});
