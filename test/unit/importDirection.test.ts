import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkImports, formatReport } from '../../scripts/check-imports.mjs';

const dirs: string[] = [];
afterEach(() => { for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true }); });

/** A src/ tree of the given files (path relative to src/ → text). */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'office-imports-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('import direction (shared/DESIGN.md: domain <- port <- services, dispatch <- adapters <- scheduler)', () => {
  it('src has no import against the layer direction', () => {
    const result = spawnSync(process.execPath, ['scripts/check-imports.mjs'], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('names a service that imports the event bus, with its line and the rule it breaks', () => {
    const src = tree({
      'events/bus.ts': 'export class EventBus {}\n',
      'services/tasks.ts': "import type { Tx } from '../persistence/store.js';\nimport { EventBus } from '../events/bus.js';\n",
      'persistence/store.ts': 'export interface Tx {}\n',
    });
    const report = formatReport(checkImports(src, new Map()));
    expect(report).toContain("src/services/tasks.ts:2 imports '../events/bus.js': services must not import events");
    expect(report).not.toContain('persistence/store.js');
  });

  it('refuses domain code that reads the configuration, a machine that imports a package other than xstate, and a service that names the SQLite store', () => {
    const src = tree({
      'config.ts': 'export const config = {};\n',
      'domain/rules.ts': "import { config } from '../config.js';\n",
      'machines/agent.ts': "import { setup } from 'xstate';\nimport pino from 'pino';\n",
      'persistence/sqlite/store.ts': 'export class SqliteStore {}\n',
      'services/org.ts': "import {\n  SqliteStore,\n} from '../persistence/sqlite/store.js';\n",
    });
    const { violations } = checkImports(src, new Map());
    expect(violations.map((v) => `${v.from}:${v.line} ${v.specifier}`)).toEqual(expect.arrayContaining([
      'domain/rules.ts:1 ../config.js',
      'machines/agent.ts:2 pino',
      'services/org.ts:1 ../persistence/sqlite/store.js',
    ]));
    expect(violations).toHaveLength(3);
  });

  it('keeps the typed client apart from the server: it imports only its own folder, and the CLI may import it', () => {
    const src = tree({
      'domain/types.ts': 'export type Id = string;\n',
      'client/index.ts': "import createClient from 'openapi-fetch';\nimport type { Id } from '../domain/types.js';\n",
      'cli/index.ts': "import { createOfficeClient } from '../client/index.js';\n",
    });
    const report = formatReport(checkImports(src, new Map()));
    expect(report).toContain("src/client/index.ts:2 imports '../domain/types.js': the client imports only client");
    expect(report).not.toContain('openapi-fetch');
    expect(report).not.toContain('cli/index.ts');
  });

  it('reports a file that no layer names, and checks the statements and tables both stores share as an adapter', () => {
    const src = tree({
      'persistence/store.ts': 'export interface Tx {}\n',
      'persistence/tables.ts': 'export const TASKS = {};\n',
      'persistence/sql/tasks.ts': "import type { Tx } from '../store.js';\nimport { TASKS } from '../tables.js';\n",
      'services/tasks.ts': "import { TASKS } from '../persistence/tables.js';\n",
      'helpers/misc.ts': 'export const x = 1;\n',
    });
    const report = formatReport(checkImports(src, new Map()));
    expect(report).toContain('src/helpers/misc.ts: this file has no layer');
    expect(report).toContain("src/services/tasks.ts:1 imports '../persistence/tables.js': only createStore and the scheduler name a Store implementation");
    expect(report).not.toContain('persistence/sql/tasks.ts');
  });

  it('lets the scheduler name the store implementation and an allowed import pass, and reports an allow-list entry that matches nothing', () => {
    const src = tree({
      'persistence/sqlite/store.ts': 'export class SqliteStore {}\n',
      'scheduler.ts': "import { SqliteStore } from './persistence/sqlite/store.js';\n",
      'events/bus.ts': 'export class EventBus {}\n',
      'services/tasks.ts': "import { EventBus } from '../events/bus.js';\n",
    });
    const allowed = new Map([
      ['services/tasks.ts -> events/bus.ts', 'kept on purpose'],
      ['services/org.ts -> events/bus.ts', 'fixed long ago'],
    ]);
    expect(checkImports(src, allowed)).toEqual({ violations: [], stale: ['services/org.ts -> events/bus.ts'] });
  });
});
