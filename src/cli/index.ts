/**
 * `office-scheduler`: the scheduler's command line (bin/office-scheduler.mjs runs it): `serve`,
 * `demo`, and the API commands of commands/ through the typed client. It reads OFFICE_API_URL (else
 * http://127.0.0.1:$OFFICE_PORT, default port 7700) and OFFICE_API_TOKEN, prints plain tables (or
 * `--json`), and exits 0 on success, 1 when the API refuses, 2 on bad usage and 3 when no scheduler answers.
 */
import { readFileSync } from 'node:fs';
import { ApiClient, CliError, EXIT } from './client.js';
import { parse, type Io } from './args.js';
import { commandList, helpOf, runCommand, type Command } from './command.js';
import { API_COMMANDS } from './commands/index.js';
import { DEMO, seedDemo } from './demo.js';
import { startServer } from './server.js';
import { mcpStdio } from './mcp.js';

export type { Io } from './args.js';

export const USAGE = `Usage: office-scheduler <command> [options]

Commands:
${commandList([
  ['serve', 'start the scheduler (builds the dashboard first if needed)'],
  ['demo', 'start the scheduler with a demo workspace (database ./data/demo.db)'],
  ...API_COMMANDS.map((c): [string, string] => [c.name, c.summary]),
  ['mcp', 'the agents\' MCP server over stdio, inside an agent\'s run (OFFICE_RUN_TOKEN)'],
  ['help [<command>]', 'this text, or a command\'s forms and options (also: office-scheduler <command> --help)'],
])}

Options: --json prints the API's JSON instead of a table; --version prints the version. Agents and
workspaces are named by name (quoted if it has spaces: --agent "Hello bot") or by id.
Environment: OFFICE_API_URL (default http://127.0.0.1:7700; without it, OFFICE_PORT sets the port), OFFICE_API_TOKEN.
Exit codes: 0 ok, 1 the API refused the request or a name matches no one or several, 2 bad usage, 3 cannot connect.`;

const defaultIo: Io = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  env: process.env,
};

export async function main(argv: string[], io: Io = defaultIo): Promise<number> {
  try {
    return await run(argv, io);
  } catch (error) {
    if (error instanceof CliError) {
      io.err(`office-scheduler: ${error.message}`);
      if (error.exitCode === EXIT.usage) io.err(`Run \`office-scheduler help${error.topic ? ` ${error.topic}` : ''}\` for usage.`);
      return error.exitCode;
    }
    io.err(`office-scheduler: unexpected error: ${error instanceof Error ? error.stack : String(error)}`);
    return EXIT.api;
  }
}

async function run(argv: string[], io: Io): Promise<number> {
  const [command, topic] = argv;
  switch (command) {
    case undefined:
      io.out(USAGE);
      return EXIT.usage;
    case 'help':
    case '--help':
    case '-h':
      return help(topic, io);
    case 'serve':
      parse(argv.slice(1), {}, 0);
      return serve(io);
    case 'demo':
      parse(argv.slice(1), {}, 0);
      return demo(io);
    case '--version':
    case '-V':
    case 'version':
      parse(argv.slice(1), {}, 0);
      io.out(`office-scheduler ${version()}`);
      return EXIT.ok;
    case 'mcp':
      parse(argv.slice(1), {}, 0);
      return mcpStdio(io.env);
    default:
      return runApiCommand(command, argv.slice(1), io);
  }
}

/** `help <command>` prints that command's help; a name no command has is a usage error. */
function help(topic: string | undefined, io: Io): number {
  if (topic === undefined) {
    io.out(USAGE);
    return EXIT.ok;
  }
  io.out(helpOf(commandNamed(topic)));
  return EXIT.ok;
}

function runApiCommand(name: string, args: string[], io: Io): Promise<number> {
  return runCommand(commandNamed(name), args, io);
}

function commandNamed(name: string): Command {
  const command = API_COMMANDS.find((c) => c.name === name);
  if (!command) throw new CliError(`unknown command '${name}'`, EXIT.usage);
  return command;
}

/** The package's version, from its package.json (two levels up from here, in src/ and in a compiled build alike). */
function version(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

async function serve(io: Io): Promise<number> {
  const server = await startServer(io.env, io.err);
  return server.exited;
}

async function demo(io: Io): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...io.env, OFFICE_DB: io.env.OFFICE_DB || './data/demo.db', OFFICE_LOG_LEVEL: io.env.OFFICE_LOG_LEVEL || 'warn' };
  const server = await startServer(env, io.err);
  let url: string;
  try {
    url = await server.url;
  } catch {
    return server.exited;
  }
  try {
    const ids = await seedDemo(new ApiClient(url, env.OFFICE_API_TOKEN || undefined));
    io.out([
      '',
      `Demo ready${ids.created.length ? ` (created ${ids.created.join(', ')})` : ' (reusing the demo workspace)'}.`,
      // The link names the workspace: the dashboard would otherwise open the first one, or the last one chosen there.
      `  Dashboard: ${url}/office/tasks?workspace=${ids.workspaceId}`,
      `  '${DEMO.ticker}' wakes ${DEMO.worker} every 10 seconds; watch ${url}/office/agents/${ids.workerId}`,
      `  '${DEMO.ask}' asks for a question when you press Run now.`,
      '  The board has a task in every column: the worker does two of them, and one then waits for your approval in the Inbox.',
      '  Ctrl-C stops the scheduler; the next `npm run demo` picks up where this one left off.',
      '',
    ].join('\n'));
  } catch (error) {
    io.err(`office-scheduler: demo setup failed: ${error instanceof Error ? error.message : String(error)}`);
    server.child.kill('SIGTERM');
    await server.exited;
    return error instanceof CliError ? error.exitCode : EXIT.api;
  }
  return server.exited;
}
