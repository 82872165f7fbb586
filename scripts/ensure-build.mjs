#!/usr/bin/env node
/**
 * Compiles src/ into dist/ with tsc (tsconfig.build.json) only when dist/ is missing or older than
 * its sources, so `npm start` and the `office-scheduler` command run JavaScript, and a fresh clone
 * or a `git pull` needs no build step of its own. Runs as `prestart` and from bin/office-scheduler.mjs.
 *
 * The build only emits: it skips type checking (`--noCheck`), which `npm run typecheck` and CI do,
 * so a start is not held up by it. Files tsc does not emit (the migrations' .sql, hand-written .d.ts)
 * are copied beside the compiled code, so every `import.meta.url`-relative read finds them in dist/
 * as in src/. The typed client (src/client/, when there) also gets its .d.ts declarations.
 *
 * TypeScript is a dev dependency: an install without them (`npm ci --omit=dev`) runs the dist/
 * already built (`npm run build` before pruning), and fails with the reason when there is none.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildIntoPlace, staleReason } from './build-output.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SRC = join(ROOT, 'src');
const DIST = join(ROOT, 'dist');
const MAIN = join(DIST, 'main.js');
const CLIENT = join(SRC, 'client');
const CONFIG = join(ROOT, 'tsconfig.build.json');
const CLIENT_CONFIG = join(ROOT, 'tsconfig.client.json');
/** Everything dist/ is made from: the sources, the compiler settings and this recipe. */
const SOURCES = [SRC, join(ROOT, 'tsconfig.json'), CONFIG, CLIENT_CONFIG, fileURLToPath(import.meta.url)];
/**
 * The bench compiled with the sources it imports, for the suites whose figure is the process's own
 * memory (P4, P5): tsx's loader would add its own (some 40 MB of RSS) to what they measure. Inside
 * the repository, so that the packages resolve from node_modules.
 */
const BENCH_DIST = join(ROOT, 'dist-bench');
const BENCH_CONFIG = join(ROOT, 'tsconfig.bench.json');
// All of test/: the bench imports the tests' PostgreSQL setup, which imports their helpers.
const BENCH_SOURCES = [...SOURCES, join(ROOT, 'bench'), join(ROOT, 'test'), BENCH_CONFIG];

/** Why dist/ needs building, or null when it is current. */
export function buildReason() {
  return staleReason({ name: 'dist', marker: MAIN, sources: SOURCES });
}

/** Builds when needed; resolves once dist/ is there, and rejects when it cannot be built. */
export async function ensureBuild({ log = (line) => process.stderr.write(`${line}\n`), force = false } = {}) {
  const reason = force ? 'forced' : buildReason();
  if (!reason) return;
  const tsc = resolveTsc();
  if (!tsc) {
    if (existsSync(MAIN)) return log(`build: ${reason}, but TypeScript is not installed (npm ci installs it); running the build in dist/`);
    throw new Error('dist/ is missing and TypeScript is not installed: run `npm ci` (with the dev dependencies), or `npm run build` before `npm prune --omit=dev`');
  }
  const started = Date.now();
  log(`build: compiling src/ into dist/ (${reason})…`);
  await buildIntoPlace({ output: DIST, marker: MAIN, build: (temp) => compile(tsc, temp), isCurrent: () => !force && buildReason() === null });
  log(`build: compiled in ${Date.now() - started} ms`);
}

/** Compiles bench/ (and src/, which it imports) into dist-bench/ when it is missing or stale; resolves to that folder. */
export async function ensureBenchBuild() {
  const marker = join(BENCH_DIST, 'bench', 'run.js');
  const stale = () => staleReason({ name: 'dist-bench', marker, sources: BENCH_SOURCES });
  if (!stale()) return BENCH_DIST;
  const tsc = resolveTsc();
  if (!tsc) throw new Error('the bench is compiled with TypeScript, which is not installed: run `npm ci`');
  await buildIntoPlace({
    output: BENCH_DIST, marker, isCurrent: () => stale() === null,
    build: async (temp) => {
      await runTsc(tsc, ['-p', BENCH_CONFIG, '--noCheck', '--outDir', temp]);
      copyUncompiled(SRC, join(temp, 'src'));
    },
  });
  return BENCH_DIST;
}

/** tsc's own script, run by this node; createRequire, since a test runner's module loader may lack import.meta.resolve. */
function resolveTsc() {
  try {
    return createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    return null;
  }
}

async function compile(tsc, outDir) {
  await runTsc(tsc, ['-p', CONFIG, '--noCheck', '--outDir', outDir]);
  if (existsSync(CLIENT)) await runTsc(tsc, ['-p', CLIENT_CONFIG, '--noCheck', '--outDir', outDir]);
  copyUncompiled(SRC, outDir);
}

function runTsc(tsc, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsc, ...args], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`tsc ${args.join(' ')} exited with ${signal ?? code}`))));
  });
}

/** A .ts file is compiled; anything else under src/ (and a .d.ts, which tsc never emits) is copied as it is. */
function copyUncompiled(from, to) {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) copyUncompiled(source, target);
    else if (!entry.name.endsWith('.ts') || entry.name.endsWith('.d.ts')) {
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(source, target);
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  ensureBuild({ force: process.argv.includes('--force') }).catch((error) => {
    process.stderr.write(`build: failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
