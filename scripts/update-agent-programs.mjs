#!/usr/bin/env node
// `npm run agents:update`: moves the real agent programs to their newest versions and the recordings
// with them.
//   1. installs the newest Claude Code, Codex CLI and Gemini CLI and writes them back as the pins
//      (scripts/install-agent-programs.mjs --latest, into scripts/agent-programs.json);
//   2. records what they print against their stand-ins into test/fixtures/agents/recordings/captured/
//      (scripts/record-agent-programs.ts), listing how each recording differs from the one it replaces;
//   3. runs the real-program tests and the tests that replay the recordings.
// Then review the differences it listed (a new field, a new text form) and commit the pins with the recordings.
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function step(what, command, args) {
  console.log(`\n== ${what}: ${command} ${args.join(' ')}`);
  const { status, error } = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit' });
  if (error) throw error;
  if (status !== 0) {
    console.error(`agents:update: ${what} failed (exit ${status})`);
    process.exit(status ?? 1);
  }
}

step('install the newest versions', process.execPath, ['scripts/install-agent-programs.mjs', ...(process.argv.includes('--pinned') ? [] : ['--latest'])]);
step('record them against the stand-ins', 'npx', ['tsx', 'scripts/record-agent-programs.ts']);
step('run the real programs and the recordings through the tests', 'npx', ['vitest', 'run', 'test/integration/agentPrograms', 'test/unit/agentAdapters']);
console.log('\nagents:update: done; review the differences listed above, then commit scripts/agent-programs.json with test/fixtures/agents/recordings/captured/.');
