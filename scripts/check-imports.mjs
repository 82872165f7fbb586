#!/usr/bin/env node
/**
 * Keeps the imports of src/ pointing the one way the README states ("Imports point one way"): LAYERS
 * below is that rule as data, and the README is where it is written down.
 *
 * Every file under src/ has a layer: a file that matches none is reported, so that no code escapes
 * the check by sitting where no prefix names it. A new folder gets its layer here first.
 *
 * `node scripts/check-imports.mjs` prints each offending import and exits 1; `npm test` runs the same
 * check (test/unit/importDirection.test.ts). Plain JavaScript, so it runs without a TypeScript loader.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Layers from the innermost out; the first prefix that matches a path (relative to src/) wins. */
export const LAYERS = [
  { name: 'domain', rank: 0, paths: ['domain/'] },
  // client/: the typed HTTP client users import (office-scheduler/client); it stands apart from the server.
  { name: 'client', rank: 0, paths: ['client/'] },
  { name: 'config', rank: 1, paths: ['config.ts'] },
  { name: 'machines', rank: 1, paths: ['machines/'] },
  { name: 'persistence port', rank: 2, paths: ['persistence/store.ts', 'persistence/port/', 'persistence/storageUnavailable.ts', 'persistence/inspector.ts'] },
  // The spans of a wakeup's steps, over the OpenTelemetry API only: services and dispatch record them.
  { name: 'telemetry', rank: 2.5, paths: ['telemetry/'] },
  { name: 'services', rank: 3, paths: ['services/'] },
  // The pipeline uses the services (wakeups, activity, budget standing); never the other way round.
  { name: 'dispatch', rank: 3.5, paths: ['dispatch/'] },
  { name: 'persistence adapters', rank: 4, paths: [
    'persistence/sqlite/', 'persistence/postgres/', 'persistence/sql/', 'persistence/shared/', 'persistence/tables.ts', 'persistence/createStore.ts',
  ] },
  { name: 'events', rank: 4, paths: ['events/'] },
  { name: 'actors', rank: 4, paths: ['actors/'] },
  { name: 'executors', rank: 4, paths: ['executors/'] },
  { name: 'http', rank: 4, paths: ['http/'] },
  // wiring/: the helpers createScheduler wires with (the ports that break its cycles).
  { name: 'scheduler', rank: 5, paths: ['scheduler.ts', 'main.ts', 'cli/', 'wiring/'] },
];

/** Packages a machine may import: machines stay pure, effects are injected by the runtime. */
const MACHINE_PACKAGES = new Set(['xstate']);

/**
 * Imports against the direction that are known and kept on purpose, each with the reason. An entry
 * is `importer -> imported`, both relative to src/. Keep it empty if you can; the check fails on an
 * entry that no longer matches any import, so a fixed one cannot linger here.
 */
export const ALLOWED = new Map([
]);

const SOURCE = /\.(ts|mts|mjs|js)$/;
const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

export function layerOf(path) {
  return LAYERS.find((layer) => layer.paths.some((prefix) => path === prefix || path.startsWith(prefix))) ?? null;
}

function listSources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return listSources(path);
    return SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts') && !entry.name.endsWith('.d.mts') ? [path] : [];
  });
}

/** Every import specifier in a source text, with its line number. Comments are blanked out first. */
export function importsOf(text) {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const found = [];
  for (const match of code.matchAll(IMPORT)) {
    const specifier = match[1] ?? match[2];
    // The match may start with the whitespace before the keyword: count lines up to the keyword.
    const at = match.index + match[0].search(/\S/);
    found.push({ specifier, line: code.slice(0, at).split('\n').length });
  }
  return found;
}

/** The rule an import breaks, or null. Paths are relative to src/, with forward slashes. */
export function violationOf(from, specifier, to) {
  const source = layerOf(from);
  if (!source) return null;
  if (to === null) {
    // A package (or node: builtin). Only machines are restricted.
    const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
    if (source.name === 'machines' && !MACHINE_PACKAGES.has(name)) return `machines import only xstate (and domain types), not the package '${name}'`;
    return null;
  }
  const target = layerOf(to);
  if (!target) return null;
  if (source.name === 'domain' && target.name !== 'domain') return `domain imports only domain, not ${target.name}`;
  if (source.name === 'client' && target.name !== 'client') return `the client imports only client (its generated types), not ${target.name}: users import it without the server`;
  if (source.name === 'machines' && target.name !== 'machines' && target.name !== 'domain') return `machines import only xstate and domain, not ${target.name}`;
  if (target.name === 'persistence adapters' && source.name !== 'persistence adapters' && source.rank < 5) {
    return `only createStore and the scheduler name a Store implementation; ${source.name} goes through the port (persistence/store.ts)`;
  }
  if (target.rank > source.rank) return `${source.name} must not import ${target.name}: imports point from the outer layers in, ${target.name} is further out`;
  return null;
}

/** Checks every source file under `srcDir`; returns the violations not in the allow-list, and allow-list entries that match nothing. */
export function checkImports(srcDir, allowed = ALLOWED) {
  const violations = [];
  const used = new Set();
  const posix = (path) => path.split(sep).join('/');
  for (const file of listSources(srcDir)) {
    const from = posix(relative(srcDir, file));
    if (!layerOf(from)) {
      violations.push({ from, line: 1, specifier: null, rule: 'this file has no layer: add its path to LAYERS in scripts/check-imports.mjs' });
      continue;
    }
    for (const { specifier, line } of importsOf(readFileSync(file, 'utf8'))) {
      const isRelative = specifier.startsWith('.');
      const to = isRelative ? posix(relative(srcDir, resolve(dirname(file), specifier))).replace(/\.js$/, '.ts') : null;
      if (to !== null && to.startsWith('..')) continue;
      const rule = violationOf(from, specifier, to);
      if (!rule) continue;
      const key = `${from} -> ${to ?? specifier}`;
      if (allowed.has(key)) { used.add(key); continue; }
      violations.push({ from, line, specifier, rule });
    }
  }
  const stale = [...allowed.keys()].filter((key) => !used.has(key));
  return { violations, stale };
}

export function formatReport({ violations, stale }) {
  const lines = violations.map((v) => (v.specifier === null ? `src/${v.from}: ${v.rule}` : `src/${v.from}:${v.line} imports '${v.specifier}': ${v.rule}`));
  for (const key of stale) lines.push(`scripts/check-imports.mjs: the allowed import '${key}' no longer exists; remove it from ALLOWED`);
  if (lines.length) lines.push('', 'Move the imported type or function to the layer where it belongs (shared/DESIGN.md, "Shape"), or depend on an interface the inner layer owns.');
  return lines.join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const srcDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'src');
  const result = checkImports(srcDir);
  if (result.violations.length || result.stale.length) {
    console.error(formatReport(result));
    process.exit(1);
  }
  console.log('imports point one way: no import against the layer direction');
}
