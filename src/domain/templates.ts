/*
 * Routine template variables: declarations, `{{ name }}` placeholders, value resolution and
 * rendering. Pure: the current time and zone are passed in.
 */
import { z } from 'zod';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
// Same identifier shape as declarations; anything else between braces is literal text.
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

export const VARIABLE_TYPES = ['text', 'number', 'boolean', 'select'] as const;
export type VariableType = (typeof VARIABLE_TYPES)[number];

export type VariableValue = string | number | boolean;

export const BUILTIN_VARIABLES = ['date', 'datetime'] as const;
export type BuiltinVariable = (typeof BUILTIN_VARIABLES)[number];

const BaseVariableDeclSchema = z.object({
  name: z.string().regex(IDENTIFIER, {
    error: (issue) =>
      `variable name ${JSON.stringify(issue.input)} must be an identifier (letters, digits, _; not starting with a digit)`,
  }),
  type: z.enum(VARIABLE_TYPES),
  default: z.union([z.string(), z.number(), z.boolean(), z.null()]).optional(),
  required: z.boolean().default(false),
  options: z.array(z.string()).optional(),
  description: z.string().optional(),
});

export const VariableDeclSchema = BaseVariableDeclSchema.superRefine((decl, ctx) => {
  if (decl.type === 'select' && (decl.options === undefined || decl.options.length === 0)) {
    ctx.addIssue({
      code: 'custom',
      path: ['options'],
      message: `select variable '${decl.name}' needs a non-empty 'options' list`,
    });
    return;
  }
  // A default that could never be used as a value is a declaration bug; report it up front.
  if (decl.default === undefined || decl.default === null) return;
  const coerced = coerceValue(decl, decl.default);
  if (!coerced.ok) {
    ctx.addIssue({ code: 'custom', path: ['default'], message: `${coerced.message} (declared default)` });
  }
});

export const VariableDeclsSchema = z.array(VariableDeclSchema).superRefine((decls, ctx) => {
  const seen = new Set<string>();
  decls.forEach((decl, index) => {
    if (seen.has(decl.name)) {
      ctx.addIssue({ code: 'custom', path: [index, 'name'], message: `duplicate variable name '${decl.name}'` });
    }
    seen.add(decl.name);
  });
});

/** A declaration as written by users; `required` defaults to false. */
export type VariableDecl = z.input<typeof VariableDeclSchema>;
/** A declaration after schema parsing, with defaults applied. */
export type ParsedVariableDecl = z.output<typeof VariableDeclSchema>;

/** Unique placeholder names, in order of first appearance. */
export function extractPlaceholders(text: string): string[] {
  const names = new Set<string>();
  for (const match of text.matchAll(PLACEHOLDER)) names.add(match[1] as string);
  return [...names];
}

export function isBuiltinVariable(name: string): name is BuiltinVariable {
  return (BUILTIN_VARIABLES as readonly string[]).includes(name);
}

/**
 * Builtins as seen on a wall clock in `timezone`:
 * - date: 'YYYY-MM-DD' (e.g. '2026-04-25')
 * - datetime: 'YYYY-MM-DD HH:MM', 24-hour, no seconds and no offset (e.g. '2026-04-25 09:00')
 */
export function builtinValues(now: Date, timezone: string): Record<BuiltinVariable, string> {
  // Every zone's offset is a whole number of minutes, so one minute has one answer: a herd of fires
  // due in the same minute formats it once.
  const minute = Math.floor(now.getTime() / 60_000);
  const last = lastBuiltins.get(timezone);
  if (last && last.minute === minute) return { ...last.values };
  const parts = wallClockParts(now, timezone);
  const date = `${parts.year}-${parts.month}-${parts.day}`;
  const values = { date, datetime: `${date} ${parts.hour}:${parts.minute}` };
  lastBuiltins.set(timezone, { minute, values });
  return { ...values };
}

/** The built-ins last computed in each time zone, with the minute they were for. */
const lastBuiltins = new Map<string, { minute: number; values: Record<BuiltinVariable, string> }>();

/** Declares every undeclared, non-builtin placeholder as optional text, after the existing ones. */
export function autoDeclare(decls: readonly VariableDecl[], templateTexts: readonly string[]): VariableDecl[] {
  const known = new Set<string>([...decls.map((decl) => decl.name), ...BUILTIN_VARIABLES]);
  const added: VariableDecl[] = [];
  for (const name of templateTexts.flatMap(extractPlaceholders)) {
    if (known.has(name)) continue;
    known.add(name);
    added.push({ name, type: 'text', required: false });
  }
  return [...decls, ...added];
}

export interface VariableError {
  name: string;
  message: string;
}

export type ResolveResult =
  | { ok: true; values: Record<string, VariableValue> }
  | { ok: false; errors: VariableError[] };

/**
 * Resolution order, later wins: builtins → declared defaults → provided values. Provided keys
 * that are not declared are kept when they are primitives, because webhook bodies carry fields
 * that templates reference without declaring them. A provided null/undefined counts as absent,
 * so it falls back to the default. An empty string is a value and satisfies `required`.
 */
export function resolveVariables(
  decls: readonly VariableDecl[],
  provided: Record<string, unknown>,
  now: Date,
  timezone: string,
): ResolveResult {
  const values = new Map<string, VariableValue>(Object.entries(builtinValues(now, timezone)));
  const errors: VariableError[] = [];
  const declared = new Map(decls.map((decl) => [decl.name, decl]));

  for (const decl of decls) {
    if (decl.default === undefined || decl.default === null) continue;
    const coerced = coerceValue(decl, decl.default);
    if (coerced.ok) values.set(decl.name, coerced.value);
    else errors.push({ name: decl.name, message: `${coerced.message} (declared default)` });
  }

  for (const [name, raw] of Object.entries(provided)) {
    if (raw === undefined || raw === null) continue;
    const decl = declared.get(name);
    if (decl === undefined) {
      if (isPrimitiveValue(raw)) values.set(name, raw);
      continue;
    }
    const coerced = coerceValue(decl, raw);
    if (coerced.ok) values.set(name, coerced.value);
    else errors.push({ name, message: `${coerced.message} (provided value)` });
  }

  for (const decl of decls) {
    const alreadyReported = errors.some((error) => error.name === decl.name);
    if (decl.required === true && !values.has(decl.name) && !alreadyReported) {
      errors.push({ name: decl.name, message: `missing required variable '${decl.name}'` });
    }
  }

  // fromEntries defines own properties, so a key like '__proto__' stays plain data.
  return errors.length > 0 ? { ok: false, errors } : { ok: true, values: Object.fromEntries(values) };
}

/**
 * Replaces each `{{ name }}` whose value is a string, number or boolean. Anything else (absent,
 * null, objects) leaves the placeholder as written so a missing value is visible in the output.
 * Single pass: placeholders inside substituted values are not expanded again.
 */
export function renderTemplate(text: string, values: Record<string, unknown>): string {
  return text.replace(PLACEHOLDER, (placeholder, name: string) => {
    // Own properties only, so '{{constructor}}' is not filled from Object.prototype.
    if (!Object.hasOwn(values, name)) return placeholder;
    const value = values[name];
    return isPrimitiveValue(value) ? String(value) : placeholder;
  });
}

// ---------------------------------------------------------------------------------------------

type Coerced = { ok: true; value: VariableValue } | { ok: false; message: string };

function coerceValue(decl: Pick<VariableDecl, 'name' | 'type' | 'options'>, raw: unknown): Coerced {
  switch (decl.type) {
    case 'number':
      return coerceNumber(decl.name, raw);
    case 'boolean':
      return coerceBoolean(decl.name, raw);
    case 'select':
      return coerceSelect(decl.name, decl.options ?? [], raw);
    case 'text':
      return coerceText(decl.name, raw);
  }
}

function coerceNumber(name: string, raw: unknown): Coerced {
  if (typeof raw === 'number' && Number.isFinite(raw)) return { ok: true, value: raw };
  if (typeof raw === 'string' && raw.trim() !== '') {
    const parsed = Number(raw.trim());
    if (Number.isFinite(parsed)) return { ok: true, value: parsed };
  }
  return { ok: false, message: `variable '${name}' expects a number, got ${describe(raw)}` };
}

function coerceBoolean(name: string, raw: unknown): Coerced {
  if (typeof raw === 'boolean') return { ok: true, value: raw };
  if (raw === 'true' || raw === 'false') return { ok: true, value: raw === 'true' };
  return { ok: false, message: `variable '${name}' expects true or false, got ${describe(raw)}` };
}

function coerceSelect(name: string, options: readonly string[], raw: unknown): Coerced {
  // Numbers are compared as text so options like ['1', '2'] accept a JSON number.
  const candidate = typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : raw;
  if (typeof candidate === 'string' && options.includes(candidate)) return { ok: true, value: candidate };
  const allowed = options.map((option) => `'${option}'`).join(', ');
  return { ok: false, message: `variable '${name}' must be one of ${allowed}, got ${describe(raw)}` };
}

function coerceText(name: string, raw: unknown): Coerced {
  if (typeof raw === 'string') return { ok: true, value: raw };
  if ((typeof raw === 'number' && Number.isFinite(raw)) || typeof raw === 'boolean') {
    return { ok: true, value: String(raw) };
  }
  return { ok: false, message: `variable '${name}' expects text, got ${describe(raw)}` };
}

function isPrimitiveValue(value: unknown): value is VariableValue {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

function describe(raw: unknown): string {
  if (typeof raw === 'string') return `'${raw}'`;
  if (Array.isArray(raw)) return 'an array';
  if (typeof raw === 'object' && raw !== null) return 'an object';
  return String(raw);
}

interface WallClockParts {
  year: string;
  month: string;
  day: string;
  hour: string;
  minute: string;
}

/** One formatter per time zone: building an Intl.DateTimeFormat costs far more than using one (a herd of cron fires resolves thousands). */
const wallClockFormatters = new Map<string, Intl.DateTimeFormat>();

function wallClockFormatter(timezone: string): Intl.DateTimeFormat {
  let formatter = wallClockFormatters.get(timezone);
  if (formatter) return formatter;
  try {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
  } catch {
    throw new RangeError(`builtinValues: invalid time zone '${timezone}'`);
  }
  wallClockFormatters.set(timezone, formatter);
  return formatter;
}

function wallClockParts(now: Date, timezone: string): WallClockParts {
  const formatter = wallClockFormatter(timezone);
  if (Number.isNaN(now.getTime())) throw new RangeError(`builtinValues: 'now' is an invalid Date`);
  const fields: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {};
  for (const part of formatter.formatToParts(now)) fields[part.type] = part.value;
  return {
    year: (fields.year ?? '').padStart(4, '0'),
    month: fields.month ?? '',
    day: fields.day ?? '',
    hour: fields.hour ?? '',
    minute: fields.minute ?? '',
  };
}
