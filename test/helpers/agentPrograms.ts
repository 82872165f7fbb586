/**
 * The agent programs in integration tests: executors of the kinds claude_code, codex and gemini_cli
 * whose program is the replayer (test/fixtures/agents/bin), which plays a recorded output of the real
 * program, and what each invocation of it recorded (its arguments, its prompt, its environment).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PROGRAM_NAMES, type AgentProgramKind } from '../../src/domain/agentPrograms.js';
import { FIXTURES } from './harness.js';

/** Where the replayers are named as the programs are: first on a session's PATH, they are the programs. */
export const PROGRAM_BIN = join(FIXTURES, 'agents', 'bin');

export interface ProgramOptions {
  /** Directory of the invocations' records (FIXTURE_RECORD_DIR). */
  record: string;
  /** The sessions the replayer knows (FIXTURE_SESSIONS_DIR): a resume of another id is refused. */
  sessions?: string;
  /** One recorded scenario for every invocation, or one per invocation in order (with `counter`). */
  scenario?: string;
  scenarios?: string[];
  counter?: string;
  /** The executor's other fields: model, prices, args, env. */
  executor?: Record<string, unknown>;
  /** Found on PATH instead of named by `command`. */
  onPath?: boolean;
}

/** An executor of `kind` whose program is the replayer. */
export function programExecutor(kind: AgentProgramKind, options: ProgramOptions): Record<string, unknown> {
  const { executor = {} } = options;
  const env: Record<string, string> = {
    FIXTURE_RECORD_DIR: options.record,
    ...(options.sessions ? { FIXTURE_SESSIONS_DIR: options.sessions } : {}),
    ...(options.scenario ? { FIXTURE_SCENARIO: options.scenario } : {}),
    ...(options.scenarios ? { FIXTURE_SCENARIOS: options.scenarios.join(',') } : {}),
    ...(options.counter ? { FIXTURE_COUNTER_FILE: options.counter } : {}),
    ...(options.onPath ? { PATH: `${PROGRAM_BIN}:${process.env.PATH ?? ''}` } : {}),
    ...(executor.env as Record<string, string> | undefined),
  };
  return {
    kind,
    ...(options.onPath ? {} : { command: join(PROGRAM_BIN, PROGRAM_NAMES[kind].command) }),
    ...executor,
    env,
  };
}

export interface Invocation {
  program: string;
  argv: string[];
  prompt: string;
  env: Record<string, string>;
  scenario: string;
  session_id: string;
  started_at: number;
}

/** What the program was called with, for one run, in order (a refused resume makes two). */
export function invocationsOf(record: string, runId: string): Invocation[] {
  if (!existsSync(record)) return [];
  return readdirSync(record)
    .filter((file) => file.startsWith(`${runId}.`) && file.endsWith('.json'))
    .sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]))
    .map((file) => JSON.parse(readFileSync(join(record, file), 'utf8')) as Invocation);
}
