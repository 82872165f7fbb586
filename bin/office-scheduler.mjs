#!/usr/bin/env node
// The `office-scheduler` command. The CLI is TypeScript (src/cli/), loaded through tsx, which is
// a runtime dependency of the scheduler anyway. Run `office-scheduler help` for the commands.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/index.ts');
process.exitCode = await main(process.argv.slice(2));
