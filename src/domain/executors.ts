import { z } from 'zod';
import { AGENT_PROGRAM_KINDS, PROGRAM_NAMES, type AgentProgramKind } from './agentPrograms.js';

/** How a run reaches an agent. `function` is in-process, for embedding and benchmarks. */
export const CommandExecutorSchema = z.strictObject({
  kind: z.literal('command'),
  command: z.string().min(1).max(4096),
  args: z.array(z.string().max(65_536)).max(1000).optional(),
  cwd: z.string().max(4096).optional(),
  env: z.record(z.string().max(256), z.string().max(65_536)).optional(),
  timeout_sec: z.number().positive().max(7 * 86_400).optional(),
});

export const HttpExecutorSchema = z.strictObject({
  kind: z.literal('http'),
  url: z.url({ protocol: /^https?$/ }).max(4096),
  headers: z.record(z.string().max(256), z.string().max(8192)).optional(),
  timeout_sec: z.number().positive().max(7 * 86_400).optional(),
});

export const FunctionExecutorSchema = z.strictObject({
  kind: z.literal('function'),
  name: z.string().min(1).max(256),
  timeout_sec: z.number().positive().max(7 * 86_400).optional(),
});

/** Per million tokens: what a run's cost is computed from when its program reports tokens only. */
export const PricesSchema = z.strictObject({
  input_per_mtok_usd: z.number().nonnegative().max(100_000),
  output_per_mtok_usd: z.number().nonnegative().max(100_000),
  cached_input_per_mtok_usd: z.number().nonnegative().max(100_000).optional(),
}).describe('USD per million tokens. Cached input is priced at cached_input_per_mtok_usd, or at the input price when absent.');

/** One of the agent programs people run (API.md, "Agent CLIs"): the scheduler chooses its flags. */
const agentProgramExecutor = <K extends AgentProgramKind>(kind: K) => z.strictObject({
  kind: z.literal(kind),
  command: z.string().min(1).max(4096).optional().describe(`The program to run; default \`${PROGRAM_NAMES[kind].command}\`, found on the session's PATH.`),
  args: z.array(z.string().max(65_536)).max(1000).optional().describe('Extra arguments, after the ones the scheduler chooses.'),
  model: z.string().min(1).max(256).optional().describe("Passed with the program's own model flag."),
  cwd: z.string().max(4096).optional(),
  env: z.record(z.string().max(256), z.string().max(65_536)).optional(),
  timeout_sec: z.number().positive().max(7 * 86_400).optional(),
  prices: PricesSchema.optional(),
  mcp: z.boolean().optional().describe("Hand the scheduler's MCP server (/mcp, with the run token) to the program through its own MCP option (Claude Code, Codex; Gemini CLI has none for one session); default true."),
});

export const ClaudeCodeExecutorSchema = agentProgramExecutor('claude_code');
export const CodexExecutorSchema = agentProgramExecutor('codex');
export const GeminiCliExecutorSchema = agentProgramExecutor('gemini_cli');

export const ExecutorSpecSchema = z.discriminatedUnion('kind', [
  CommandExecutorSchema,
  HttpExecutorSchema,
  FunctionExecutorSchema,
  ClaudeCodeExecutorSchema,
  CodexExecutorSchema,
  GeminiCliExecutorSchema,
]);
export type ExecutorSpec = z.infer<typeof ExecutorSpecSchema>;
/** An executor of one of the agent programs (claude_code, codex, gemini_cli). */
export type AgentProgramSpec = Extract<ExecutorSpec, { kind: AgentProgramKind }>;

export const isAgentProgramSpec = (spec: ExecutorSpec): spec is AgentProgramSpec => (AGENT_PROGRAM_KINDS as readonly string[]).includes(spec.kind);

/**
 * Whether a run of this executor is running from its claim on: an in-process function is called the
 * moment the claim commits, in the same process, so nothing can start or be lost in between. Every
 * other run is `queued` until its session has really started (a process spawned, a request sent).
 */
export const runsFromItsClaim = (spec: ExecutorSpec): boolean => spec.kind === 'function';

export interface ExecutorCandidates {
  task: ExecutorSpec | null;
  agent: ExecutorSpec | null;
  project: ExecutorSpec | null;
  workspace: ExecutorSpec | null;
}

/** Task override, then agent preference, then project default, then workspace default. */
export function resolveExecutor(candidates: ExecutorCandidates): { spec: ExecutorSpec; from: keyof ExecutorCandidates } | null {
  const order: (keyof ExecutorCandidates)[] = ['task', 'agent', 'project', 'workspace'];
  for (const from of order) {
    const spec = candidates[from];
    if (spec) return { spec, from };
  }
  return null;
}
