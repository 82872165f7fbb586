/**
 * How tests start the scheduler as its own process: the compiled build, with the flags `npm start`
 * gives it, so a test runs what a user runs. It also boots in half the time of `tsx src/main.ts`
 * (1.4 s against 2.5 s here), which the files that restart it ten times feel. vitest.config.ts
 * builds dist/ before those files start; `serverArgs` builds it too when a harness runs on its own.
 */
import { fileURLToPath } from 'node:url';
import { ensureBuild } from '../../scripts/ensure-build.mjs';

const ENTRY = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
/** The node arguments that start the scheduler, once dist/ is current. */
const SERVER_ARGS = ['--enable-source-maps', ENTRY];

let built: Promise<void> | null = null;

/** SERVER_ARGS, after dist/ is built from the current src/ (once per process; a no-op when it is). */
export async function serverArgs(): Promise<string[]> {
  built ??= ensureBuild();
  await built;
  return SERVER_ARGS;
}
