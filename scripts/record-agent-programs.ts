/**
 * Records what the installed agent programs print against their stand-ins, for the replayer's
 * recordings (test/fixtures/agents/recordings/captured/<program>.json): each scenario is one run of
 * the real program with the arguments its adapter chooses (src/executors/adapters), the prompt on
 * stdin and the stand-in answering as the scenario plans, its stdout lines, stderr and exit code kept
 * with the replayer's placeholders put back ({{SESSION_ID}}, {{TEXT}}, {{NOW_EPOCH_PLUS:<s>}}).
 * Then it says, scenario by scenario, how the new recording differs from the one it replaces.
 *
 *   npx tsx scripts/record-agent-programs.ts [claude|codex|gemini ...]
 *
 * `npm run agents:update` runs it after installing the newest versions (scripts/update-agent-programs.mjs).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentProgramKind } from '../src/domain/agentPrograms.js';
import { PROGRAM_ADAPTERS } from '../src/executors/adapters/index.js';
import { findProgram, setUpProgram, type Auth, type ProgramSetup, type RealProgram } from '../test/standins/programs.js';
import { DEFAULT_TEXT, type Reply } from '../test/standins/server.js';

const RECORDINGS = fileURLToPath(new URL('../test/fixtures/agents/recordings/', import.meta.url));
/** Where the captures say the program ran: the temp folder of each capture is written as this, so recordings do not change with it. */
const CAPTURE_ROOT = '/tmp/agent-capture';

interface Plan {
  /** The scenario's name in the recordings. */
  name: string;
  /** What the scenario shows, for its `source`. */
  what: string;
  prompt: string;
  replies: Reply[];
  auth?: Auth;
  /** The time zone the program writes reset times in. */
  tz?: string;
  /** Resume the session that this earlier scenario of the same program recorded. */
  resumes?: string;
  /** Stop the program (SIGTERM to its process group) once its stderr says this: it would wait for hours. */
  stopOnStderr?: RegExp;
  /** Stop the program (SIGTERM to its process group) this long after its model request: it waits on a stalled stream. */
  stopAfterRequestMs?: number;
}

/** The model's stream starts and stalls; the program is stopped with SIGTERM a while later, as a cancel or a timeout would. */
function killedMidStream(afterMs: number): Plan {
  return {
    name: 'killed_mid_stream', prompt: 'Say hello', replies: [{ kind: 'stall' }], stopAfterRequestMs: afterMs,
    what: `the stand-in started the model's stream and sent nothing more; the process group got SIGTERM ${afterMs / 1000} s after the request (hang: the replayer sleeps until killed)`,
  };
}

const PLANS: Record<string, { kind: AgentProgramKind; plans: Plan[] }> = {
  claude: {
    kind: 'claude_code',
    plans: [
      { name: 'success', what: 'a fresh session answering', prompt: 'Say hello', replies: [{ kind: 'text' }] },
      { name: 'success_resumed', what: 'the same session resumed with --resume <session_id>', prompt: 'Say hello again', replies: [{ kind: 'text' }], resumes: 'success' },
      {
        name: 'rate_limit_event_rejected', what: 'a subscription (CLAUDE_CODE_OAUTH_TOKEN) whose five-hour limit the stand-in answered: 429 rate_limit_error with anthropic-ratelimit-unified-* headers (representative-claim five_hour, reset 3 h on, overage rejected, overage-disabled-reason org_level_disabled) and x-should-retry: false, TZ=Europe/Warsaw',
        prompt: 'Say hello', replies: [{ kind: 'rate_limit', resetInSec: 10_800 }], auth: 'subscription', tz: 'Europe/Warsaw',
      },
      {
        name: 'api_error_429', what: 'an API key (ANTHROPIC_API_KEY) that the stand-in answered 429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your rate limit."}} with anthropic-ratelimit-requests-* headers and x-should-retry: false',
        prompt: 'Say hello', replies: [{ kind: 'rate_limit', resetInSec: 60 }],
      },
      killedMidStream(3000),
    ],
  },
  codex: {
    kind: 'codex',
    plans: [
      { name: 'success', what: 'a fresh thread answering', prompt: 'Say hello', replies: [{ kind: 'text' }] },
      { name: 'success_resumed', what: 'the same thread resumed with `exec resume <thread_id>`', prompt: 'Say hello again', replies: [{ kind: 'text' }], resumes: 'success' },
      {
        name: 'limit_try_again_at_time_captured', what: 'the stand-in answered 429 {"error":{"type":"usage_limit_reached","plan_type":"pro","resets_at":<30 min on>,"resets_in_seconds":1800}}, TZ=America/New_York',
        prompt: 'Say hello', replies: [{ kind: 'rate_limit', resetInSec: 1800 }], tz: 'America/New_York',
      },
      killedMidStream(3000),
    ],
  },
  gemini: {
    kind: 'gemini_cli',
    plans: [
      { name: 'success', what: 'a fresh session answering', prompt: 'Say hello', replies: [{ kind: 'text' }] },
      { name: 'success_resumed', what: 'the same session resumed with --resume <session_id>', prompt: 'Say hello again', replies: [{ kind: 'text' }], resumes: 'success' },
      {
        name: 'quota_reset_after_waiting', what: 'the stand-in answered 429 RESOURCE_EXHAUSTED "You have exhausted your capacity on this model. Your quota will reset after 1h49m8s." (ErrorInfo QUOTA_EXHAUSTED, RetryInfo 6548s); Gemini CLI then sleeps until the reset, so it was stopped with SIGTERM once it said so on stderr (hang: the replayer sleeps until killed)',
        prompt: 'Say hello', replies: [{ kind: 'rate_limit', resetInSec: 6548 }], stopOnStderr: /Retrying after \d+ms/,
      },
      killedMidStream(3000),
    ],
  },
};

/** Lines of stderr that say where the program ran rather than what it did, left out of the recordings. */
const ENVIRONMENT_NOISE = [
  /^WARNING: proceeding, even though we could not create PATH aliases/, // Codex, for a CODEX_HOME under /tmp
  /^Warning: 256-color support not detected/, // Gemini CLI, without a terminal
  /^Ripgrep is not available/, // Gemini CLI, without rg on PATH
];

interface Recorded {
  source: string;
  exitCode: number;
  stdout: (string | Record<string, unknown>)[];
  stderr: string;
  hang?: boolean;
}

interface Outcome {
  stdout: string;
  stderr: string;
  exitCode: number;
}

async function run(program: RealProgram, setup: ProgramSetup, plan: Plan, resumeSessionId: string | null): Promise<Outcome> {
  const requestsBefore = setup.standin.turns().length;
  const adapter = PROGRAM_ADAPTERS[program.kind];
  const { args, stdin } = adapter.invocation({ prompt: plan.prompt, model: setup.model, resumeSessionId, extraArgs: [] });
  const child = spawn(program.command, args, {
    cwd: setup.cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...(plan.tz ? { TZ: plan.tz } : {}), ...setup.env },
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8'); });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    if (plan.stopOnStderr?.test(stderr)) process.kill(-child.pid!, 'SIGTERM');
  });
  child.stdin.end(stdin);
  let stalled: NodeJS.Timeout | undefined;
  const watch = plan.stopAfterRequestMs === undefined ? undefined : setInterval(() => {
    if (setup.standin.turns().length === requestsBefore || stalled) return;
    stalled = setTimeout(() => process.kill(-child.pid!, 'SIGTERM'), plan.stopAfterRequestMs);
  }, 50);
  // A capture that runs this long is stuck: stop it, and say so below.
  const stuck = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 120_000);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (c, s) => resolve([c, s])));
  clearTimeout(stuck);
  clearInterval(watch);
  clearTimeout(stalled);
  // What a shell reports for a process a signal ended (the replayer's exitCode for a hang).
  const exitCode = code ?? 128 + (signal === 'SIGKILL' ? 9 : 15);
  if (signal === 'SIGKILL') throw new Error(`${program.bin} ${plan.name}: still running after 120 s`);
  return { stdout, stderr, exitCode };
}

/** The session id the output names (init, thread.started), for the resumed scenario and the placeholder. */
function sessionIdOf(lines: unknown[]): string | null {
  for (const line of lines) {
    if (line && typeof line === 'object') {
      const event = line as Record<string, unknown>;
      const id = event.session_id ?? event.thread_id;
      if (typeof id === 'string') return id;
    }
  }
  return null;
}

/** The captured output with the replayer's placeholders in place of what changes from run to run. */
function templated(value: unknown, context: { sessionId: string | null; dir: string; resetEpoch: number | null; resetInSec: number | null }): unknown {
  if (typeof value === 'string') {
    // Claude Code names a project's folder by its path with every other character a dash.
    const encoded = (path: string) => path.replace(/[^a-zA-Z0-9]/g, '-');
    let text = value.split(context.dir).join(CAPTURE_ROOT).split(encoded(context.dir)).join(encoded(CAPTURE_ROOT));
    if (context.sessionId) text = text.split(context.sessionId).join('{{SESSION_ID}}');
    if (text === DEFAULT_TEXT) return '{{TEXT}}';
    return text.split(DEFAULT_TEXT).join('{{TEXT}}');
  }
  if (typeof value === 'number' && context.resetEpoch !== null && Math.abs(value - context.resetEpoch) <= 5) return `{{NOW_EPOCH_PLUS:${context.resetInSec}}}`;
  if (Array.isArray(value)) return value.map((item) => templated(item, context));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, templated(item, context)]));
  return value;
}

function parseLines(stdout: string): (string | Record<string, unknown>)[] {
  return stdout.split('\n').filter((line) => line.length > 0).map((line) => {
    try {
      const parsed: unknown = JSON.parse(line);
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed as Record<string, unknown> : line;
    } catch {
      return line;
    }
  });
}

async function capture(name: string): Promise<void> {
  const { kind, plans } = PLANS[name]!;
  const found = findProgram(kind);
  if ('absent' in found) throw new Error(found.absent);
  const previous = ((await import(join(RECORDINGS, `${name}.mjs`))) as { scenarios: Record<string, Recorded> }).scenarios;
  const recorded: Record<string, Recorded> = {};
  const sessions: Record<string, string> = {};
  const dir = mkdtempSync(join(tmpdir(), 'agent-capture-'));
  try {
    const setups = new Map<Auth, ProgramSetup>();
    for (const plan of plans) {
      const auth = plan.auth ?? 'api_key';
      if (!setups.has(auth)) setups.set(auth, await setUpProgram(kind, join(dir, auth), auth));
      const setup = setups.get(auth)!;
      setup.standin.plan(...plan.replies);
      const resumeId = plan.resumes ? sessions[plan.resumes] ?? null : null;
      if (plan.resumes && !resumeId) throw new Error(`${name} ${plan.name}: ${plan.resumes} recorded no session to resume`);
      const asked = Math.floor(Date.now() / 1000);
      const outcome = await run(found, setup, plan, resumeId);
      const lines = parseLines(outcome.stdout);
      const sessionId = sessionIdOf(lines) ?? resumeId;
      if (sessionId) sessions[plan.name] = sessionId;
      const reply = plan.replies.find((r) => r.kind === 'rate_limit');
      const context = { sessionId, dir: join(dir, auth), resetEpoch: reply ? asked + reply.resetInSec : null, resetInSec: reply ? reply.resetInSec : null };
      const stderrLines = outcome.stderr.split('\n');
      const noise = stderrLines.filter((line) => ENVIRONMENT_NOISE.some((pattern) => pattern.test(line)));
      const stderr = stderrLines.filter((line) => !noise.includes(line)).join('\n');
      const { args } = PROGRAM_ADAPTERS[kind].invocation({ prompt: plan.prompt, model: setup.model, resumeSessionId: resumeId === null ? null : '<session_id>', extraArgs: [] });
      recorded[plan.name] = {
        source: [
          `Captured by \`npm run agents:update\` (scripts/record-agent-programs.ts) on ${new Date().toISOString().slice(0, 10)} from ${found.package} ${found.version},`,
          `run as \`${found.bin} ${args.join(' ')}\` with the prompt ${JSON.stringify(plan.prompt)} on stdin, no network, against ${standinOf(kind)}: ${plan.what}.`,
          noise.length > 0 ? `Left out of stderr: ${noise.length} line(s) about the capture's environment (${ENVIRONMENT_NOISE.filter((p) => noise.some((l) => p.test(l))).map((p) => p.source.replace(/^\^/, '').replace(/\\/g, '')).join('; ')}).` : '',
        ].filter(Boolean).join(' '),
        exitCode: outcome.exitCode,
        stdout: templated(lines, context) as Recorded['stdout'],
        stderr: templated(stderr, context) as string,
        ...(plan.stopOnStderr || plan.stopAfterRequestMs !== undefined ? { hang: true } : {}),
      };
      console.log(`${name} ${plan.name}: exit ${outcome.exitCode}, ${lines.length} stdout lines`);
      for (const difference of differences(previous[plan.name], recorded[plan.name]!)) console.log(`  - ${difference}`);
    }
    for (const setup of setups.values()) await setup.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  mkdirSync(join(RECORDINGS, 'captured'), { recursive: true });
  const file = join(RECORDINGS, 'captured', `${name}.json`);
  writeFileSync(file, `${JSON.stringify({ program: found.package, version: found.version, scenarios: recorded }, null, 2)}\n`);
  console.log(`${name}: wrote ${file}`);
}

function standinOf(kind: AgentProgramKind): string {
  switch (kind) {
    case 'claude_code': return 'the Messages-API stand-in test/standins/anthropic.ts (ANTHROPIC_BASE_URL, a temp HOME and CLAUDE_CONFIG_DIR, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1)';
    case 'codex': return 'the Responses-API stand-in test/standins/openai.ts (a provider in CODEX_HOME/config.toml with wire_api "responses", analytics and update checks off)';
    case 'gemini_cli': return 'the Gemini-API stand-in test/standins/google.ts (GOOGLE_GEMINI_BASE_URL, GEMINI_API_KEY, settings.json security.auth.selectedType "gemini-api-key" under GEMINI_CLI_HOME, GEMINI_CLI_TRUST_WORKSPACE=true, usage statistics off)';
  }
}

/** Keys whose values change with every run: not a difference worth naming. */
const VOLATILE = new Set(['uuid', 'timestamp', 'session_id', 'thread_id', 'id', 'request_id', 'cwd', 'resetsAt', 'messaging_socket_path']);
/** Timings (`duration_ms`, `ttft_stream_ms`, …) change with every run too. */
const isVolatile = (key: string) => VOLATILE.has(key) || key.endsWith('_ms');

/** How the new recording differs from the old one: exit code, the line types, and each line's fields. */
function differences(before: Recorded | undefined, after: Recorded): string[] {
  if (!before) return ['new scenario'];
  const found: string[] = [];
  if (before.exitCode !== after.exitCode) found.push(`exit code ${before.exitCode} -> ${after.exitCode}`);
  const typeOf = (line: string | Record<string, unknown>) => (typeof line === 'string' ? 'text line' : `${String(line.type)}${line.subtype ? `/${String(line.subtype)}` : ''}`);
  const beforeTypes = before.stdout.map(typeOf);
  const afterTypes = after.stdout.map(typeOf);
  if (beforeTypes.join() !== afterTypes.join()) found.push(`stdout lines [${beforeTypes.join(', ')}] -> [${afterTypes.join(', ')}]`);
  for (let i = 0; i < Math.min(before.stdout.length, after.stdout.length); i += 1) {
    const a = before.stdout[i]!;
    const b = after.stdout[i]!;
    if (typeof a === 'string' || typeof b === 'string' || typeOf(a) !== typeOf(b)) continue;
    for (const change of fieldChanges(a, b, '')) found.push(`${typeOf(b)}: ${change}`);
  }
  const stderrBefore = before.stderr.trim();
  const stderrAfter = after.stderr.trim();
  if (stderrBefore !== stderrAfter) found.push(`stderr ${JSON.stringify(stderrBefore.slice(0, 200))} -> ${JSON.stringify(stderrAfter.slice(0, 200))}`);
  return found;
}

function fieldChanges(a: unknown, b: unknown, path: string): string[] {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isObject(a) && isObject(b)) {
    const changes: string[] = [];
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (isVolatile(key)) continue;
      const at = path ? `${path}.${key}` : key;
      if (!(key in a)) changes.push(`+${at} ${JSON.stringify(b[key]).slice(0, 120)}`);
      else if (!(key in b)) changes.push(`-${at}`);
      else changes.push(...fieldChanges(a[key], b[key], at));
    }
    return changes;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.every((v) => typeof v === 'string') && b.every((v) => typeof v === 'string')) {
    const added = b.filter((v) => !a.includes(v));
    const removed = a.filter((v) => !b.includes(v));
    return [...(added.length ? [`${path} +${JSON.stringify(added)}`] : []), ...(removed.length ? [`${path} -${JSON.stringify(removed)}`] : [])];
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) return [`${path} ${JSON.stringify(a)?.slice(0, 120)} -> ${JSON.stringify(b)?.slice(0, 120)}`];
  return [];
}

const wanted = process.argv.slice(2);
for (const name of wanted.length > 0 ? wanted : Object.keys(PLANS)) {
  if (!PLANS[name]) throw new Error(`no captures for '${name}': one of ${Object.keys(PLANS).join(', ')}`);
  await capture(name);
}
