/**
 * Runs simulation seeds outside vitest and prints a summary (and the trace of any failure):
 *   npx tsx test/simulation/run.ts 123            one seed
 *   npx tsx test/simulation/run.ts 1 500          seeds 1..500
 */
import { simulate } from './world.js';

const from = Number(process.argv[2] ?? 1);
const to = Number(process.argv[3] ?? from);
const verbose = process.env.SIM_TRACE === '1';
let failed = 0;
const started = performance.now();
for (let seed = from; seed <= to; seed++) {
  const result = await simulate({ seed });
  if (result.violations.length || verbose) {
    if (result.violations.length) failed++;
    console.log(`seed ${seed} (${result.crashPoint}, ${result.crashes} crashes): ${result.violations.length} violation(s)`);
    for (const v of result.violations) console.log(`  - ${v.slice(0, 2000)}`);
    if (verbose || to === from) for (const line of result.trace) console.log(`    ${line}`);
  }
}
console.log(`${to - from + 1} seeds, ${failed} failed, ${((performance.now() - started) / 1000).toFixed(1)} s`);
process.exit(failed ? 1 : 0);
