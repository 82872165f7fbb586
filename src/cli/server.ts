/**
 * Starts the scheduler as a child process (`node dist/main.js`, or `src/main.ts` through tsx when
 * this module runs as TypeScript, in development and tests), after building the
 * dashboard if it is missing. The child inherits the environment and the working directory, so
 * OFFICE_DB and the other settings mean what they mean for `npm start`; SIGINT and SIGTERM are
 * passed on, so the scheduler shuts down cleanly.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ensureDashboard } from '../../scripts/ensure-dashboard.mjs';

/** The compiled CLI starts the compiled server; run as TypeScript, it starts the TypeScript one. */
const COMPILED = import.meta.url.endsWith('.js');
const MAIN = fileURLToPath(new URL(COMPILED ? '../main.js' : '../main.ts', import.meta.url));
const NODE_OPTIONS = COMPILED ? ['--enable-source-maps'] : ['--import', import.meta.resolve('tsx')];
const LISTENING = /Office Scheduler listening on (\S+)/;

export interface ServerProcess {
  child: ChildProcess;
  /** The URL from the server's "listening on" line; rejects if it exits first. */
  url: Promise<string>;
  /** The exit code (a signal counts as 1, except the SIGINT/SIGTERM we passed on). */
  exited: Promise<number>;
}

export async function startServer(env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<ServerProcess> {
  await ensureDashboard({ log }).catch((error: Error) => log(`dashboard: build failed (${error.message}); serving the API only`));
  const child = spawn(process.execPath, [...NODE_OPTIONS, MAIN], { env: withConsoleFormat(env), stdio: ['ignore', 'pipe', 'inherit'] });

  let forwarded = false;
  const forward = (signal: NodeJS.Signals) => {
    forwarded = true;
    child.kill(signal);
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);

  const exited = new Promise<number>((resolve) => {
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(code ?? (forwarded && (signal === 'SIGINT' || signal === 'SIGTERM') ? 0 : 1));
    });
  });
  const url = new Promise<string>((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      buffer = (buffer + chunk.toString('utf8')).slice(-4096);
      const found = LISTENING.exec(buffer);
      if (found) resolve(found[1]!);
    });
    void exited.then((code) => reject(new Error(`the scheduler exited (code ${code}) before it was listening`)));
  });
  url.catch(() => {});
  return { child, url, exited };
}

/**
 * The child's stdout is a pipe (its "listening on" line is read from it), so it would log JSON, for
 * a log collector; when this process writes to a terminal, a person reads those lines: they are
 * asked for as lines, unless OFFICE_LOG_FORMAT says otherwise.
 */
function withConsoleFormat(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return env.OFFICE_LOG_FORMAT || !process.stdout.isTTY ? env : { ...env, OFFICE_LOG_FORMAT: 'pretty' };
}
