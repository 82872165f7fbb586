/**
 * The tests that run what a user runs (the `office-scheduler` bin, `npm start`'s command, a server
 * process of its own) run the compiled build in dist/: it is compiled here once, before their files
 * start, when it is missing or older than src/, rather than by each file's first command racing the
 * others under a test timeout.
 */
import { ensureBuild } from '../../scripts/ensure-build.mjs';

export default async function setup(): Promise<void> {
  await ensureBuild();
}
