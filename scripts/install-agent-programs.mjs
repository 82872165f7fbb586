#!/usr/bin/env node
// Installs the real agent programs (Claude Code, Codex CLI, Gemini CLI) that the real-program tests
// run (test/integration/agentPrograms.real.*.test.ts), at the exact versions pinned in
// scripts/agent-programs.json, into a cache folder of their own (./.agent-programs, or
// OFFICE_AGENT_PROGRAMS_DIR): they are some 900 MB, so they stay out of the project's node_modules
// and out of a user's `npm ci`. An install that already holds the pinned versions is left as it is.
//
//   node scripts/install-agent-programs.mjs            the pinned versions
//   node scripts/install-agent-programs.mjs --latest   the newest versions on the registry, written back as the new pins
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PINS = join(ROOT, 'scripts', 'agent-programs.json');
const DIR = resolve(ROOT, process.env.OFFICE_AGENT_PROGRAMS_DIR ?? '.agent-programs');

const pins = JSON.parse(readFileSync(PINS, 'utf8'));
// With stdio inherited (the install, so that its progress shows) execFileSync returns null, not the output.
const npm = (args, options = {}) => (execFileSync('npm', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], ...options }) ?? '').trim();

if (process.argv.includes('--latest')) {
  for (const [kind, pin] of Object.entries(pins)) {
    const latest = npm(['view', pin.package, 'version']);
    if (latest !== pin.version) console.log(`${kind}: ${pin.package} ${pin.version} -> ${latest}`);
    pin.version = latest;
  }
  writeFileSync(PINS, `${JSON.stringify(pins, null, 2)}\n`);
}

/** The version installed in the cache folder, or null. */
function installedVersion(pkg) {
  const manifest = join(DIR, 'node_modules', pkg, 'package.json');
  return existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')).version : null;
}

const wanted = Object.values(pins).filter((pin) => installedVersion(pin.package) !== pin.version);
if (wanted.length === 0) {
  console.log(`agent programs: ${Object.values(pins).map((p) => `${p.package}@${p.version}`).join(', ')} already in ${DIR}`);
  process.exit(0);
}
mkdirSync(DIR, { recursive: true });
// A package.json of its own, so npm installs here and not into the project above it.
if (!existsSync(join(DIR, 'package.json'))) writeFileSync(join(DIR, 'package.json'), '{ "private": true, "description": "The agent programs the real-program tests run (scripts/install-agent-programs.mjs)" }\n');
const started = Date.now();
const specs = Object.values(pins).map((pin) => `${pin.package}@${pin.version}`);
console.log(`agent programs: installing ${specs.join(' ')} into ${DIR}`);
// Claude Code's postinstall links its platform binary; the others' scripts build optional native parts.
npm(['install', '--no-save', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error', '--engine-strict=false', ...specs], { cwd: DIR, stdio: ['ignore', 'inherit', 'inherit'] });
for (const pin of Object.values(pins)) {
  const version = installedVersion(pin.package);
  if (version !== pin.version) throw new Error(`${pin.package}: installed ${version ?? 'nothing'}, pinned ${pin.version}`);
}
console.log(`agent programs: installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
