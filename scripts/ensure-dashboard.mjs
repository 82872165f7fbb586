#!/usr/bin/env node
/**
 * Builds the dashboard (dashboard/dist) only when it is missing or older than its sources, so
 * `npm start` works on a fresh clone and stays quick afterwards. Runs as `prestart`, from the CLI's
 * `serve` and `demo`, and from the browser tests.
 *
 * The build goes to a temporary folder that is then renamed into place, so two builds racing
 * (parallel test files) never leave a half-written dist/. Without the dev dependencies (an
 * `npm ci --omit=dev` install) it warns and carries on: the server then shows a "not built" page.
 */
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DASHBOARD = join(ROOT, 'dashboard');
const DIST = join(DASHBOARD, 'dist');
/** Everything the bundle is built from: its own sources and the src/ modules it imports. */
const SOURCES = [join(DASHBOARD, 'src'), join(DASHBOARD, 'index.html'), join(DASHBOARD, 'vite.config.ts'), join(ROOT, 'src', 'domain'), join(ROOT, 'src', 'machines'), join(ROOT, 'src', 'client')];

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestMtime(join(path, name))));
}

/** Why the dashboard needs building, or null when dist/ is current. */
export function buildReason() {
  const index = join(DIST, 'index.html');
  if (!existsSync(index)) return 'dashboard/dist is missing';
  const built = statSync(index).mtimeMs;
  return SOURCES.some((source) => newestMtime(source) > built) ? 'dashboard sources changed since the last build' : null;
}

/** Builds when needed; resolves to true when dist/ is there afterwards. */
export async function ensureDashboard({ log = (line) => process.stderr.write(`${line}\n`), force = false } = {}) {
  const reason = force ? 'forced' : buildReason();
  if (!reason) return true;
  let build;
  try {
    ({ build } = await import('vite'));
  } catch {
    log('dashboard: not built, and vite is not installed (npm ci installs it); serving the API only');
    return existsSync(join(DIST, 'index.html'));
  }
  const started = Date.now();
  log(`dashboard: building (${reason})…`);
  const temp = join(DASHBOARD, `.dist-${process.pid}-${started}`);
  try {
    await build({ configFile: join(DASHBOARD, 'vite.config.ts'), logLevel: 'warn', build: { outDir: temp, emptyOutDir: true } });
    // Another build may have finished meanwhile; then keep its output rather than swap files under a running server.
    if (buildReason() === null && !force) return true;
    rmSync(DIST, { recursive: true, force: true });
    try {
      renameSync(temp, DIST);
    } catch (error) {
      // Another build finished first and renamed its output into place: that one is as good.
      if (!existsSync(join(DIST, 'index.html'))) throw error;
    }
    log(`dashboard: built in ${Date.now() - started} ms`);
    return true;
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  ensureDashboard({ force: process.argv.includes('--force') }).catch((error) => {
    process.stderr.write(`dashboard: build failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
