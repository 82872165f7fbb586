/** Finding the tests' own child processes by their command line, through Linux /proc. */
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';

/** Pids of live processes whose argv (the /proc cmdline split on NUL) passes `test`; none where there is no /proc. */
export function pidsWhere(test: (argv: string[]) => boolean): number[] {
  if (!existsSync('/proc/self/cmdline')) return [];
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (test(readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0'))) pids.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return pids;
}

/** SIGKILLs a server child process that is still running, and waits until it has exited. */
export async function killServer(server: { proc: ChildProcess; exited: Promise<unknown> }): Promise<void> {
  if (server.proc.exitCode === null && server.proc.signalCode === null) server.proc.kill('SIGKILL');
  await server.exited;
}

/**
 * Pids of live processes whose environment holds `name=value`: a session's processes carry its
 * run's OFFICE_RUN_ID, whatever the program named itself and whatever it started.
 */
export function pidsWithEnv(name: string, value: string): number[] {
  if (!existsSync('/proc/self/environ')) return [];
  const wanted = `${name}=${value}`;
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(wanted)) pids.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return pids;
}
