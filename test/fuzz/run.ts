/**
 * `npm run test:fuzz`: 10,000 random and malformed requests across every route of the real app.
 * FUZZ_RUNS and FUZZ_SEED (replay) change it.
 */
import { runFuzz } from './fuzz.js';

const runs = Number(process.env.FUZZ_RUNS ?? 10_000);
const seed = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : undefined;
const report = await runFuzz({ runs, seed, log: (line) => process.stderr.write(`  ${line}\n`) });
console.log('\nFuzzing (fast-check) against the real app');
console.log(`  seed              ${report.seed} (replay: FUZZ_SEED=${report.seed} FUZZ_RUNS=${runs} npm run test:fuzz)`);
console.log(`  requests          ${report.runs} (${report.overHttp} over real HTTP, the rest in-process), ${report.routes} routes`);
console.log(`  by status         ${JSON.stringify(report.byStatus)}`);
console.log(`  by body kind      ${JSON.stringify(report.byBodyKind)}`);
if (process.env.FUZZ_VERBOSE === '1') {
  for (const [route, statuses] of Object.entries(report.byRoute).sort()) console.log(`    ${route.padEnd(70)} ${JSON.stringify(statuses)}`);
  for (const [key, body] of Object.entries(report.samples).sort()) if (/\[clean\] 4/.test(key)) console.log(`    ${key}: ${body}`);
}
console.log(`  ready at the end  ${report.readyAtEnd}`);
console.log(`  elapsed           ${(report.elapsedMs / 1000).toFixed(1)} s`);
if (report.violations.length) {
  console.log('\nINVARIANT VIOLATED:');
  for (const v of report.violations) console.log(`  - ${v}`);
  process.exit(1);
}
console.log('  never a 5xx, no rejected request changed the database, server ready at the end');
