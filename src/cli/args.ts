/**
 * Reading a command line: options parsed strictly (an unknown option is a usage error), values
 * checked before anything is sent, so that a bad argument exits 2 with a clear message and calls
 * nothing, and a command's output as a table or, with `--json`, as the API's own JSON.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { z } from 'zod';
import { CliError, EXIT } from './client.js';

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  env: NodeJS.ProcessEnv;
}

export type Values = Record<string, string | boolean | string[] | undefined>;

export interface Parsed {
  values: Values;
  positionals: string[];
}

/** A usage error (the command that is running adds itself as the help topic: command.ts). */
export function usage(message: string): never {
  throw new CliError(message, EXIT.usage);
}

/** Every command takes `--json`; at most `positionals` arguments besides the options. */
export function parse(args: string[], options: ParseArgsConfig['options'], positionals: number): Parsed {
  let parsed: Parsed;
  try {
    parsed = parseArgs({ args, options: { ...options, json: { type: 'boolean' } }, allowPositionals: true, strict: true });
  } catch (error) {
    usage((error as Error).message);
  }
  if (parsed.positionals.length > positionals) usage(`unexpected argument '${parsed.positionals[positionals]}'`);
  return parsed;
}

export function text(values: Values, name: string): string | undefined {
  return values[name] as string | undefined;
}

export function texts(values: Values, name: string): string[] {
  return (values[name] as string[] | undefined) ?? [];
}

/** `--name <n>` as a whole number from `min` to `max`. */
export function wholeNumber(values: Values, name: string, min = 0, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const raw = text(values, name);
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) usage(`--${name} expects a whole number from ${min} to ${max}, got '${raw}'`);
  return Number(raw);
}

/** `--name <v>` as one of `allowed`, compared as given; the message lists what is allowed. */
export function oneOf<T extends string>(values: Values, name: string, allowed: readonly T[], what: string): T | undefined {
  const raw = text(values, name);
  if (raw === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(raw)) usage(`--${name} '${raw}' is not ${what}; expected one of ${allowed.join(', ')}`);
  return raw as T;
}

/**
 * A request body checked with the API's own schema (src/domain/schemas.ts) before it is sent: a
 * mistake is a usage error in the server's words, naming the option it came from.
 */
export function checked<B>(schema: z.ZodType, body: B, optionOf: Record<string, string>): B {
  const result = schema.safeParse(body);
  if (result.success) return body;
  const problems = result.error.issues.map((issue) => {
    const field = String(issue.path[0] ?? '');
    const where = optionOf[field] ?? (issue.path.join('.') || 'the request');
    return `${where}: ${issue.message}`;
  });
  return usage(problems.join('; '));
}

/** Prints `value` as JSON with `--json`, else what `render` makes of it. */
export function emit<T>(io: Io, values: Values, value: T, render: (value: T) => string): number {
  io.out(values.json ? JSON.stringify(value, null, 2) : render(value));
  return EXIT.ok;
}

/** A list: the API's JSON with `--json`, `empty` when there is nothing in it, else the table `render` makes. */
export async function emitList<T>(io: Io, values: Values, items: T[], empty: string, render: (items: T[]) => Promise<string> | string): Promise<number> {
  if (values.json || items.length === 0) return emit(io, values, items, () => empty);
  io.out(await render(items));
  return EXIT.ok;
}

/** A form with one argument (an id, a name) besides its options; `missing` is the usage error when it is left out. */
export function withArgument(args: string[], options: ParseArgsConfig['options'], missing: string): { values: Values; argument: string } {
  const { values, positionals } = parse(args, options, 1);
  return { values, argument: positionals[0] ?? usage(missing) };
}
