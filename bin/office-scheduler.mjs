#!/usr/bin/env node
// The `office-scheduler` command: the compiled CLI (dist/cli/), compiled from src/ first when dist/
// is missing or older than its sources. Run `office-scheduler help` for the commands.
import { ensureBuild } from '../scripts/ensure-build.mjs';

await ensureBuild();
const { main } = await import('../dist/cli/index.js');
process.exitCode = await main(process.argv.slice(2));
