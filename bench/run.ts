/** `npm run bench`: measures every figure in one run on this machine and prints a table. */
import { p1EnqueueRatio, p2Throughput, p3Latency } from './p123.js';
import { printTable, type Figure } from './support.js';

const only = process.argv.slice(2);
const suites: Record<string, () => Promise<Figure[]>> = {
  P1: p1EnqueueRatio,
  P2: p2Throughput,
  P3: p3Latency,
};

const figures: Figure[] = [];
for (const [id, suite] of Object.entries(suites)) {
  if (only.length && !only.includes(id)) continue;
  process.stderr.write(`running ${id}...\n`);
  figures.push(...(await suite()));
}
printTable(figures);
