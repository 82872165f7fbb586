/**
 * A command of the CLI as data: its forms (`tasks list …`, `tasks move …`), each with a synopsis,
 * a line saying what it does and the function that runs it, and notes on its options. The help
 * texts (`office-scheduler help tasks`, `tasks --help`, the command list) are made from it, so a
 * new command is one entry in commands/index.ts and its help comes with it.
 */
import type { Io } from './args.js';
import { CliError, EXIT } from './client.js';

export interface Form {
  /** After the command's name: `move <id> <state> [--note <text>]`; empty for a command with one form. */
  synopsis: string;
  does: string;
  run: (args: string[], io: Io) => Promise<number>;
}

export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** By subcommand name; a command with one form has it under ''. */
  forms: Record<string, Form>;
  /** What its options mean, under its forms in its help. */
  notes?: string;
}

const INDENT = '  ';

/** `tasks move <id> <state> [--note <text>]`, and under it what it does. */
function formLines(command: Command): string[] {
  return Object.values(command.forms).flatMap((form) => [
    `${INDENT}${[command.name, form.synopsis].filter(Boolean).join(' ')}`,
    `${INDENT}${INDENT}${INDENT}${form.does}`,
  ]);
}

export function helpOf(command: Command): string {
  const subcommands = Object.keys(command.forms).filter(Boolean);
  const shape = subcommands.length ? `${command.name} <${subcommands.join('|')}>` : command.name;
  return [
    `Usage: office-scheduler ${shape} [options]`,
    '',
    `${command.summary}.`,
    '',
    ...formLines(command),
    ...(command.notes ? ['', command.notes] : []),
    '',
    'Every command takes --json (the API\'s JSON instead of a table) and --help.',
  ].join('\n');
}

/** `name  summary` lines with the names aligned, for the top-level help. */
export function commandList(rows: Array<[name: string, summary: string]>): string {
  const width = Math.max(...rows.map(([name]) => name.length));
  return rows.map(([name, summary]) => `${INDENT}${name.padEnd(width)}  ${summary}`).join('\n');
}

function wantsHelp(args: string[]): boolean {
  const options = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
  return options.includes('--help') || options.includes('-h');
}

/** Runs the form `args` name; `--help` anywhere prints the command's help instead. A usage error points to this command's help. */
export async function runCommand(command: Command, args: string[], io: Io): Promise<number> {
  if (wantsHelp(args)) {
    io.out(helpOf(command));
    return EXIT.ok;
  }
  try {
    const single = command.forms[''];
    if (single) return await single.run(args, io);
    const [sub, ...rest] = args;
    const form = sub === undefined ? undefined : command.forms[sub];
    if (!form) throw new CliError(unknownForm(command, sub), EXIT.usage);
    return await form.run(rest, io);
  } catch (error) {
    if (error instanceof CliError && error.exitCode === EXIT.usage && error.topic === undefined) {
      throw new CliError(error.message, error.exitCode, command.name);
    }
    throw error;
  }
}

function unknownForm(command: Command, sub: string | undefined): string {
  const names = Object.keys(command.forms);
  const spoken = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : names.join('');
  return sub === undefined
    ? `'${command.name}' needs a subcommand: ${spoken}`
    : `unknown command '${command.name} ${sub}'; expected ${names.map((n) => `'${command.name} ${n}'`).join(', ')}`;
}
