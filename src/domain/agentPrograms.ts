/**
 * The agent programs people run (API.md, "Agent CLIs"): their names, the variables that carry
 * their credentials and endpoints, what a run records of their usage and cost, and the quota key
 * that several agents on one credential share. Pure: the environment comes in as an argument.
 */
import { createHash } from 'node:crypto';

export const AGENT_PROGRAM_KINDS = ['claude_code', 'codex', 'gemini_cli'] as const;
export type AgentProgramKind = (typeof AGENT_PROGRAM_KINDS)[number];

export const isAgentProgramKind = (kind: string): kind is AgentProgramKind => (AGENT_PROGRAM_KINDS as readonly string[]).includes(kind);

/** What each program is called on PATH, and how people name it. */
export const PROGRAM_NAMES: Readonly<Record<AgentProgramKind, { command: string; title: string }>> = {
  claude_code: { command: 'claude', title: 'Claude Code' },
  codex: { command: 'codex', title: 'Codex CLI' },
  gemini_cli: { command: 'gemini', title: 'Gemini CLI' },
};

/**
 * The variables that say whose account a session spends and which endpoint it calls: two agents
 * whose sessions see the same values share one quota. Each program's own list, as its
 * documentation names them (docs/agent-clis.md).
 */
export const CREDENTIAL_VARIABLES: Readonly<Record<AgentProgramKind, readonly string[]>> = {
  claude_code: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN', 'ANTHROPIC_BASE_URL', 'CLAUDE_CONFIG_DIR'],
  codex: ['OPENAI_API_KEY', 'CODEX_API_KEY', 'OPENAI_BASE_URL', 'CODEX_HOME'],
  gemini_cli: [
    'GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GEMINI_BASE_URL', 'GOOGLE_VERTEX_BASE_URL', 'GOOGLE_CLOUD_PROJECT', 'GOOGLE_CLOUD_LOCATION',
    'GOOGLE_GENAI_USE_VERTEXAI', 'GOOGLE_GENAI_USE_GCA', 'GOOGLE_APPLICATION_CREDENTIALS', 'GEMINI_CLI_HOME',
  ],
};

/** Every program's credential variables: a session of any executor may be one of these programs behind a wrapper script. */
export const ALL_CREDENTIAL_VARIABLES: readonly string[] = [...new Set(Object.values(CREDENTIAL_VARIABLES).flat())];

/** Token counts as a run records them: `input_tokens` counts every input token, the cached ones included. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
}

/**
 * What an agent program reported as its session's running totals by the end of a run: a resumed
 * session reports them again, and the run records only the difference (API.md, "What a run records").
 */
export interface SessionTotals {
  cost_usd?: number;
  usage?: Usage;
}

/** An executor's prices, per million tokens (API.md: `prices`). */
export interface Prices {
  input_per_mtok_usd: number;
  output_per_mtok_usd: number;
  cached_input_per_mtok_usd?: number | undefined;
}

/** A run's cost and, when it has none, why. */
export interface CostReading {
  cost_usd: number | null;
  cost_note: string | null;
}

const PER_MTOK = 1_000_000;

/**
 * The cost of tokens at the executor's prices (API.md): cached input at the cached price (the input
 * price when there is none), the rest of the input at the input price, output at the output price.
 */
export function costOfUsage(usage: Usage, prices: Prices): number {
  const cached = Math.min(usage.cached_input_tokens, usage.input_tokens);
  const cachedPrice = prices.cached_input_per_mtok_usd ?? prices.input_per_mtok_usd;
  return roundUsd(((usage.input_tokens - cached) * prices.input_per_mtok_usd + cached * cachedPrice + usage.output_tokens * prices.output_per_mtok_usd) / PER_MTOK);
}

/**
 * Rounded to 1e-10 USD: float noise (0.00036080000000000004) is gone, while a run of a few tokens,
 * which costs a ten-thousandth of a cent, keeps its figure.
 */
export const roundUsd = (usd: number) => Math.round(usd * 1e10) / 1e10;

/** This run's own share of a running total the program reported for its session (never below zero). */
export function usageSince(total: Usage, before: Usage | null): Usage {
  if (!before) return total;
  const less = (a: number, b: number) => Math.max(0, a - b);
  return {
    input_tokens: less(total.input_tokens, before.input_tokens),
    output_tokens: less(total.output_tokens, before.output_tokens),
    cached_input_tokens: less(total.cached_input_tokens, before.cached_input_tokens),
  };
}

const nonNegative = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null);

/**
 * The usage a result object carries: `usage` `{input_tokens, output_tokens, cached_input_tokens}`,
 * or the same fields flat on the object (API.md: a `command` agent's last JSON line). Null when it
 * names no token count.
 */
export function usageFromResult(result: Record<string, unknown>): Usage | null {
  const nested = result.usage;
  const source = typeof nested === 'object' && nested !== null && !Array.isArray(nested) ? (nested as Record<string, unknown>) : result;
  const input = nonNegative(source.input_tokens);
  const output = nonNegative(source.output_tokens);
  if (input === null && output === null) return null;
  return { input_tokens: input ?? 0, output_tokens: output ?? 0, cached_input_tokens: nonNegative(source.cached_input_tokens) ?? 0 };
}

/** A reported cost in USD, or null when the value is none (a negative or non-numeric one is none). */
export const reportedCost = (value: unknown): number | null => nonNegative(value);

/**
 * The quota key of an executor (API.md, "A quota is shared by everyone who uses it"): its kind and
 * the values of its program's credential and endpoint variables as the session sees them. The
 * values are hashed: the key is shown by the API and must not carry a secret. None set is the
 * program's default credential (its own login).
 */
export function quotaKeyOf(kind: AgentProgramKind, sessionEnv: Readonly<Record<string, string | undefined>>): string {
  const present = CREDENTIAL_VARIABLES[kind].filter((name) => sessionEnv[name] !== undefined && sessionEnv[name] !== '');
  if (present.length === 0) return `${kind}:default`;
  const hash = createHash('sha256');
  for (const name of present) hash.update(`${name}=${sessionEnv[name]}\0`);
  return `${kind}:${hash.digest('hex').slice(0, 16)}`;
}

/** The scheduler's MCP server, as the agent programs are told of it: its name in their config, and its path under OFFICE_API_URL. */
export const OFFICE_MCP_SERVER = 'office-scheduler';
export const MCP_PATH = '/mcp';
