/** The `office-scheduler` command as a user runs it: the real bin in a child process, with only the environment given. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI_BIN = fileURLToPath(new URL('../../bin/office-scheduler.mjs', import.meta.url));

export interface CliResult { code: number | null; stdout: string; stderr: string }

/** Runs the CLI with PATH plus `env` (an undefined value leaves that variable out) and collects what it printed. */
export function runCli(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], {
      env: { PATH: process.env.PATH, ...env } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => { stdout += chunk; });
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * The CLI's `main` in this process, with only the environment given: the same code the bin runs,
 * without a child process and its TypeScript loader apiece, for tests that run many commands.
 */
export async function runCliHere(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  const { main } = await import('../../src/cli/index.js');
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await main(args, {
    out: (text) => stdout.push(`${text}\n`),
    err: (text) => stderr.push(`${text}\n`),
    env: Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined)),
  });
  return { code, stdout: stdout.join(''), stderr: stderr.join('') };
}
