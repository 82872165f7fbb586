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
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildIntoPlace, staleReason } from './build-output.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DASHBOARD = join(ROOT, 'dashboard');
const DIST = join(DASHBOARD, 'dist');
const INDEX = join(DIST, 'index.html');
/** Everything the bundle is built from: its own sources and the src/ modules it imports. */
const SOURCES = [join(DASHBOARD, 'src'), join(DASHBOARD, 'index.html'), join(DASHBOARD, 'vite.config.ts'), join(ROOT, 'src', 'domain'), join(ROOT, 'src', 'machines'), join(ROOT, 'src', 'client')];

/** Why the dashboard needs building, or null when dist/ is current. */
export function buildReason() {
  return staleReason({ name: 'dashboard/dist', marker: INDEX, sources: SOURCES });
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
    return existsSync(INDEX);
  }
  const started = Date.now();
  log(`dashboard: building (${reason})…`);
  await buildIntoPlace({
    output: DIST,
    marker: INDEX,
    build: (temp) => build({ configFile: join(DASHBOARD, 'vite.config.ts'), logLevel: 'warn', build: { outDir: temp, emptyOutDir: true } }),
    isCurrent: () => !force && buildReason() === null,
  });
  log(`dashboard: built in ${Date.now() - started} ms`);
  return true;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  ensureDashboard({ force: process.argv.includes('--force') }).catch((error) => {
    process.stderr.write(`dashboard: build failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
