/**
 * What an agent's session receives of the scheduler's environment (API.md, "Trust boundaries": an
 * agent's environment is an allow-list). One function builds it for every executor, so the run
 * token's scope holds: a session never sees OFFICE_API_TOKEN, OFFICE_DATABASE_URL or any other
 * setting of the scheduler, only what a program needs to run, reach the network and log in.
 */
import { ALL_CREDENTIAL_VARIABLES } from './agentPrograms.js';

/** What every program needs to run at all: where to find programs, whose home, which locale and terminal. */
const SYSTEM_VARIABLES = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'TZ', 'TMPDIR', 'TERM'];

/** How a host behind a proxy or with its own certificate authority reaches the network. */
const NETWORK_VARIABLES = [
  'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy',
  'NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR',
];

const ALLOWED = new Set([...SYSTEM_VARIABLES, ...NETWORK_VARIABLES, ...ALL_CREDENTIAL_VARIABLES]);

/** The locale categories (LC_ALL, LC_CTYPE, …) pass as a family. */
const isLocaleVariable = (name: string) => name.startsWith('LC_');

/** OFFICE_AGENT_ENV may name anything but the scheduler's own settings. */
export const isSchedulerSetting = (name: string) => name.startsWith('OFFICE_');

export interface AgentEnvironmentInput {
  /** The scheduler's environment (process.env). */
  host: Readonly<Record<string, string | undefined>>;
  /** OFFICE_AGENT_ENV: further names of the host's environment to pass on. */
  extraNames: readonly string[];
  /** The executor's own `env`, which wins over the host's. */
  executorEnv?: Readonly<Record<string, string>> | undefined;
  /** The run's identity (OFFICE_RUN_ID, OFFICE_RUN_TOKEN, …), which wins over the rest. */
  runVariables?: Readonly<Record<string, string>> | undefined;
  /** The run span's W3C trace context, while tracing is on: TRACEPARENT and TRACESTATE, last of all. */
  traceContext?: { traceparent: string; tracestate?: string } | null | undefined;
}

/** The trace context as the W3C environment-variable carrier names it (TRACESTATE only where there is one). */
function traceVariables(context: AgentEnvironmentInput['traceContext']): Record<string, string> {
  if (!context) return {};
  return context.tracestate ? { TRACEPARENT: context.traceparent, TRACESTATE: context.tracestate } : { TRACEPARENT: context.traceparent };
}

/**
 * The session's environment, in the order API.md gives: the allow-listed names of the host's
 * environment, the names in OFFICE_AGENT_ENV, then the executor's `env`, then the run variables, then
 * the trace context.
 */
export function agentEnvironment(input: AgentEnvironmentInput): Record<string, string> {
  const extra = new Set(input.extraNames.filter((name) => !isSchedulerSetting(name)));
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.host)) {
    if (value === undefined) continue;
    if (ALLOWED.has(name) || isLocaleVariable(name) || extra.has(name)) env[name] = value;
  }
  return { ...env, ...input.executorEnv, ...input.runVariables, ...traceVariables(input.traceContext) };
}
