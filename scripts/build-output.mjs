/**
 * What the dashboard's bundle (ensure-dashboard.mjs) and the compiled server (ensure-build.mjs) share:
 * an output folder is rebuilt only when it is missing or older than its sources, and a build is
 * written to a temporary folder that is then renamed into place, so builds racing each other
 * (parallel test files, two starts at once) never leave a half-written folder behind.
 */
import { existsSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';

const FILE_CLOCK_SLACK_MS = 100;

/** The newest modification time under a file or folder, 0 when it does not exist. */
export function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestMtime(join(path, name))));
}

/**
 * Why the output called `name` needs building, or null when it is current. `marker` is a file every build writes; its
 * time is the build's start (see buildIntoPlace), so a source saved during a build counts as newer.
 */
export function staleReason({ name, marker, sources }) {
  if (!existsSync(marker)) return `${name} is missing`;
  const built = statSync(marker).mtimeMs;
  return sources.some((source) => newestMtime(source) > built) ? `${name} is older than its sources` : null;
}

/**
 * Runs `build(temp)` into a fresh, empty folder beside `output`, then renames it into place. `isCurrent()`
 * says, once the build is done, whether another build finished meanwhile: its output is then kept
 * rather than files swapped under a running server. `marker` is the file (inside the output) whose
 * time is set to the build's start.
 */
export async function buildIntoPlace({ output, marker, build, isCurrent }) {
  const started = new Date();
  // File times come from a coarser clock than Date: a source saved just after the start may be
  // stamped a little before it. Dating the marker earlier errs towards one build too many.
  const stamp = new Date(started.getTime() - FILE_CLOCK_SLACK_MS);
  // A folder of its own even for two builds started in one process in the same millisecond.
  const temp = mkdtempSync(join(dirname(output), `.${basename(output)}-`));
  try {
    await build(temp);
    const tempMarker = join(temp, relative(output, marker));
    utimesSync(tempMarker, stamp, stamp);
    if (isCurrent()) return;
    rmSync(output, { recursive: true, force: true });
    try {
      renameSync(temp, output);
    } catch (error) {
      // Another build finished first and renamed its output into place: that one is as good.
      if (!existsSync(marker)) throw error;
    }
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}
