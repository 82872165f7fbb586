/**
 * `npm run bench`: measures every figure in one run on this machine and prints one table.
 * `npm run bench -- P4 P5` runs only those. P4 and P5 run in their own processes, so that RSS and
 * CPU are theirs alone. BENCH_IDLE_SEC shortens P5's idle window (default 60 s).
 * P6a, P6b and P6c (`npm run bench -- P6` runs the three) each start an embedded PostgreSQL of their
 * own in a temp directory; P6b and P6c run replicas as child processes. BENCH_P6A_N and BENCH_P6B_N
 * set how many assignments they measure, BENCH_P6B_LEASE_SEC P6b's lease, and BENCH_CPU_PROF_DIR
 * makes each replica process write a CPU profile there.
 * `--sql` (with or without suite ids: `npm run bench -- P2 --sql`) adds a statement profile of P2,
 * P4's fires, P6a and P7's two depths over their measured windows after the table (sqlProfile.ts).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBenchBuild } from '../scripts/ensure-build.mjs';
import { p1EnqueueRatio, p2Throughput, p3Latency, p7QueueDepth } from './enqueueThroughputLatency.js';
import { p2bStatementsPerWakeup } from './statementsPerWakeup.js';
import { p6aPostgresThroughput } from './postgresThroughput.js';
import { p6bReplicaScaling, p6cFailover } from './replicasScaling.js';
import type { IsolatedOutput } from './cronScaleAndIdle.js';
import { enableSqlProfiling, keepSqlReports, printSqlProfiles, sqlProfilingEnabled } from './sqlProfile.js';
import { printTable, type Figure } from './support.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/**
 * Runs bench/cronScaleAndIdle.ts in a fresh node process, compiled (dist-bench/) as `npm start`
 * runs the scheduler: RSS and CPU are then the scheduler's, without tsx's loader. Its last stdout
 * line is the figures and the statement profiles it kept under `--sql`.
 */
function isolated(which: 'P4' | 'P5'): () => Promise<Figure[]> {
  return async () => {
    const compiled = await ensureBenchBuild();
    return runIsolated(join(compiled, 'bench', 'cronScaleAndIdle.js'), which);
  };
}

function runIsolated(script: string, which: 'P4' | 'P5'): Promise<Figure[]> {
  return new Promise((resolve, reject) => {
    const args = ['--expose-gc', '--enable-source-maps', script, which, ...(sqlProfilingEnabled() ? ['--sql'] : [])];
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.once('exit', (code) => {
      const last = stdout.trim().split('\n').pop() ?? '';
      try {
        if (code !== 0) throw new Error(`exited with ${code}`);
        const output = JSON.parse(last) as IsolatedOutput;
        keepSqlReports(output.sqlReports);
        resolve(output.figures);
      } catch (error) {
        reject(new Error(`${which} failed: ${(error as Error).message}\n${stdout}`));
      }
    });
  });
}

// Flags (`--sql`) are not suite ids.
const args = process.argv.slice(2);
const only = args.filter((arg) => !arg.startsWith('--'));
const unknownFlags = args.filter((arg) => arg.startsWith('--') && arg !== '--sql');
if (unknownFlags.length > 0) {
  console.error(`unknown flag ${unknownFlags.join(', ')}: the one flag is --sql`);
  process.exit(2);
}
if (args.includes('--sql')) enableSqlProfiling();
const suites: Record<string, () => Promise<Figure[]>> = {
  P1: p1EnqueueRatio,
  P2: p2Throughput,
  P2b: p2bStatementsPerWakeup,
  P3: p3Latency,
  P4: isolated('P4'),
  P5: isolated('P5'),
  P6a: p6aPostgresThroughput,
  P6b: p6bReplicaScaling,
  P6c: p6cFailover,
  P7: p7QueueDepth,
};

const started = Date.now();
const figures: Figure[] = [];
for (const [id, suite] of Object.entries(suites)) {
  // `P6` selects P6a, P6b and P6c.
  if (only.length && !only.includes(id) && !only.includes(id.replace(/[a-z]$/, ''))) continue;
  process.stderr.write(`running ${id}...\n`);
  try {
    figures.push(...(await suite()));
  } catch (error) {
    figures.push({ id, name: 'failed to run', value: NaN, unit: '', goal: '', ok: false, note: (error as Error).message.split('\n')[0]!.slice(0, 120) });
  }
}
printTable(figures);
printSqlProfiles();
console.log(`\n${figures.filter((f) => f.goal && f.ok).length}/${figures.filter((f) => f.goal).length} goals met; ${((Date.now() - started) / 1000).toFixed(0)} s on ${(await import('node:os')).cpus().length} CPU(s), node ${process.version}`);
