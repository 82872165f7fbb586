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
