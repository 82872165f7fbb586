import { hostname } from 'node:os';
import { z } from 'zod';
import { parseDurationList } from './domain/backoff.js';
import { isSchedulerSetting } from './domain/agentEnvironment.js';
import { isLoopbackHost } from './domain/binding.js';

/**
 * Every setting, parsed once from the environment. Defaults are the spec's;
 * tests and small deployments shrink the timing ones to run fast.
 */

const integer = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const fraction = z.coerce.number().min(0).max(1);
const durationList = z.string().transform((value, ctx) => {
  try {
    const steps = parseDurationList(value);
    if (steps.length === 0) throw new Error('expected at least one duration, such as 2m,10m,30m,2h');
    return steps;
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});
/** A comma-separated list of names; blanks are dropped. */
const nameList = z.string().transform((value) => value.split(',').map((name) => name.trim()).filter(Boolean));
const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value === '' ? undefined : value));

const ConfigSchema = z.object({
  OFFICE_DB: z.string().min(1).default('./data/office.db'),
  OFFICE_DATABASE_URL: optionalString.refine((url) => url === undefined || /^postgres(ql)?:\/\//.test(url), {
    message: 'expected a PostgreSQL URL, such as postgres://user:password@host:5432/office (leave it unset for SQLite, OFFICE_DB)',
  }),
  OFFICE_REPLICA_ID: optionalString.refine((id) => id === undefined || /^[A-Za-z0-9._:-]{1,100}$/.test(id), {
    message: 'expected a name of letters, digits, ".", "_", ":" or "-" (at most 100), such as office-1 (leave it unset for host name and pid)',
  }),
  OFFICE_LEASE_SEC: z.coerce.number().min(0.3).max(3600).default(15),
  OFFICE_HOST: z.string().min(1).default('127.0.0.1'),
  OFFICE_PORT: integer(0, 65535).default(7700),
  OFFICE_API_TOKEN: optionalString,
  OFFICE_SESSION_TTL_HOURS: z.coerce.number().positive().max(24 * 365).default(12),
  OFFICE_ALLOWED_HOSTS: nameList.default([]),
  OFFICE_API_URL: optionalString.refine((url) => url === undefined || !url.endsWith('/'), {
    message: 'expected a base URL with no trailing slash, such as http://127.0.0.1:7700',
  }),
  OFFICE_BODY_LIMIT_BYTES: integer(1024, 64 * 1024 * 1024).default(1024 * 1024),
  OFFICE_BACKOFF: durationList.default(parseDurationList('2m,10m,30m,2h')),
  OFFICE_BACKOFF_JITTER: fraction.default(0.25),
  OFFICE_RATE_LIMIT_BUFFER_SEC: integer(0, 86_400).default(30),
  OFFICE_COALESCE_WINDOW_MS: integer(0, 3_600_000).default(5000),
  OFFICE_IDEMPOTENCY_WINDOW_HOURS: z.coerce.number().positive().max(24 * 365).default(24),
  OFFICE_RECOVERY_SWEEP_SEC: integer(0, 86_400 * 7).default(600),
  OFFICE_SQLITE_SYNC: z.enum(['NORMAL', 'FULL']).default('NORMAL'),
  OFFICE_MAX_CONCURRENT_ROUTINE_RUNS: integer(1, 1_000_000).default(100),
  OFFICE_LOOP_DETECTOR_RUNS: integer(0, 1000).default(5),
  OFFICE_SHUTDOWN_GRACE_MS: integer(0, 3_600_000).default(10_000),
  OFFICE_RUN_TIMEOUT_SEC: z.coerce.number().positive().max(7 * 86_400).default(7200),
  OFFICE_AGENT_ENV: nameList.refine((names) => !names.some(isSchedulerSetting), {
    message: "expected names of variables to pass on to agent sessions, such as GITHUB_TOKEN,AWS_PROFILE; the scheduler's own OFFICE_* settings never reach an agent",
  }).default([]),
  OFFICE_QUOTA_RELEASE_SPREAD_SEC: z.coerce.number().min(0).max(3600).default(30),
  OFFICE_TRANSCRIPT_MAX_BYTES: integer(1024, 256 * 1024 * 1024).default(1024 * 1024),
  // A hundred years is "keep it": past that a cutoff would only mean a typo.
  OFFICE_RETENTION_DAYS: z.string().regex(/^\d{1,5}$/, {
    message: 'expected a whole number of days, such as 90 (0 keeps all history)',
  }).transform(Number).refine((days) => days <= 36_500, { message: 'expected at most 36500 days (0 keeps all history)' }).default(90),
  OFFICE_LOG_FORMAT: z.enum(['pretty', 'json']).optional(),
  OFFICE_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  OFFICE_INSPECT: optionalString,
});

export type ConfigInput = z.input<typeof ConfigSchema>;

export interface Config {
  dbPath: string;
  /** A postgres:// URL: the store is PostgreSQL (and dbPath is ignored); undefined: SQLite at dbPath. */
  databaseUrl: string | undefined;
  /** This replica's name among the processes on one database (default: host name and pid); the owner of its agent leases. */
  replicaId: string;
  /** How long a replica's lease on an agent lasts without renewal (PostgreSQL; SQLite's never expire). */
  leaseSec: number;
  host: string;
  port: number;
  apiToken: string | undefined;
  /** How long a dashboard sign-in lasts before the person signs in again. */
  sessionTtlMs: number;
  /** Host header names accepted besides the loopback names and the bound address. */
  allowedHosts: string[];
  apiUrl: string | undefined;
  bodyLimitBytes: number;
  backoffStepsMs: number[];
  backoffJitter: number;
  rateLimitBufferSec: number;
  coalesceWindowMs: number;
  idempotencyWindowMs: number;
  recoverySweepSec: number;
  sqliteSync: 'NORMAL' | 'FULL';
  maxConcurrentRoutineRuns: number;
  loopDetectorRuns: number;
  shutdownGraceMs: number;
  /** The timeout of every run whose executor sets no `timeout_sec`. */
  runTimeoutSec: number;
  /** OFFICE_AGENT_ENV: names of the scheduler's environment passed on to agent sessions, besides the allow-list. */
  agentEnvNames: string[];
  /** How long after a shared quota's reset the agents it held start, spread out in the order they were held. */
  quotaReleaseSpreadMs: number;
  /** How much of what a session printed its run keeps (the last bytes). */
  transcriptMaxBytes: number;
  /** OFFICE_RETENTION_DAYS: ended history older than this many days is pruned; 0 keeps everything. */
  retentionDays: number;
  /** The host's IANA time zone: a limit message's clock time with no zone ("try again at 3:35 AM") is read in it. */
  hostTimeZone: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** How log lines look: one JSON object each (for a log collector), or lines for a person; unset: pretty on a terminal, JSON otherwise. */
  logFormat: 'pretty' | 'json' | undefined;
  inspectUrl: string | undefined;
  /**
   * Where spans go (OTLP over HTTP, JSON), from OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given or
   * OTEL_EXPORTER_OTLP_ENDPOINT plus /v1/traces; undefined: tracing is off (README, "Tracing").
   */
  tracesEndpoint: string | undefined;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses settings; a bad value throws a ConfigError naming the variable and what it expects. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const relevant = Object.fromEntries(Object.entries(env).filter(([key]) => key.startsWith('OFFICE_')));
  const parsed = ConfigSchema.safeParse(relevant);
  if (!parsed.success) {
    const lines = parsed.error.issues.map(
      (issue) => `${issue.path.join('.')}=${JSON.stringify(env[String(issue.path[0])])}: ${issue.message}`,
    );
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const c = parsed.data;
  refuseUnsafeBinding(c.OFFICE_HOST, c.OFFICE_API_TOKEN);
  return {
    dbPath: c.OFFICE_DB,
    databaseUrl: c.OFFICE_DATABASE_URL,
    replicaId: c.OFFICE_REPLICA_ID ?? defaultReplicaId(),
    leaseSec: c.OFFICE_LEASE_SEC,
    host: c.OFFICE_HOST,
    port: c.OFFICE_PORT,
    apiToken: c.OFFICE_API_TOKEN,
    sessionTtlMs: c.OFFICE_SESSION_TTL_HOURS * 3_600_000,
    allowedHosts: c.OFFICE_ALLOWED_HOSTS,
    apiUrl: c.OFFICE_API_URL,
    bodyLimitBytes: c.OFFICE_BODY_LIMIT_BYTES,
    backoffStepsMs: c.OFFICE_BACKOFF,
    backoffJitter: c.OFFICE_BACKOFF_JITTER,
    rateLimitBufferSec: c.OFFICE_RATE_LIMIT_BUFFER_SEC,
    coalesceWindowMs: c.OFFICE_COALESCE_WINDOW_MS,
    idempotencyWindowMs: c.OFFICE_IDEMPOTENCY_WINDOW_HOURS * 3_600_000,
    recoverySweepSec: c.OFFICE_RECOVERY_SWEEP_SEC,
    sqliteSync: c.OFFICE_SQLITE_SYNC,
    maxConcurrentRoutineRuns: c.OFFICE_MAX_CONCURRENT_ROUTINE_RUNS,
    loopDetectorRuns: c.OFFICE_LOOP_DETECTOR_RUNS,
    shutdownGraceMs: c.OFFICE_SHUTDOWN_GRACE_MS,
    runTimeoutSec: c.OFFICE_RUN_TIMEOUT_SEC,
    agentEnvNames: c.OFFICE_AGENT_ENV,
    quotaReleaseSpreadMs: Math.round(c.OFFICE_QUOTA_RELEASE_SPREAD_SEC * 1000),
    transcriptMaxBytes: c.OFFICE_TRANSCRIPT_MAX_BYTES,
    retentionDays: c.OFFICE_RETENTION_DAYS,
    // The zone the host's clock shows (Node reads TZ into it).
    hostTimeZone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC',
    logLevel: c.OFFICE_LOG_LEVEL,
    logFormat: c.OFFICE_LOG_FORMAT,
    inspectUrl: c.OFFICE_INSPECT,
    tracesEndpoint: tracesEndpointOf(env),
  };
}

/**
 * The OTLP/HTTP traces URL the standard OpenTelemetry variables name, as the SDK reads them: the
 * signal's own endpoint as it is, else the base endpoint with /v1/traces. None, or
 * OTEL_SDK_DISABLED=true, or OTEL_TRACES_EXPORTER=none: tracing is off.
 */
function tracesEndpointOf(env: Record<string, string | undefined>): string | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true' || env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return undefined;
  const own = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const [name, url] = own ? ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', own] : base ? ['OTEL_EXPORTER_OTLP_ENDPOINT', `${base.replace(/\/+$/, '')}/v1/traces`] : [null, null];
  if (!name || !url) return undefined;
  if (!/^https?:\/\/[^/]/.test(url) || !URL.canParse(url)) {
    throw new ConfigError(`Invalid configuration:\n  ${name}=${JSON.stringify(own ?? base)}: expected an http(s) URL of an OTLP/HTTP receiver, such as http://localhost:4318 (leave it unset to turn tracing off)`);
  }
  return url;
}

/** Host name and pid: unique among the processes of a deployment, and readable in logs and rows. */
function defaultReplicaId(): string {
  return `${hostname().replace(/[^A-Za-z0-9.-]/g, '-').slice(0, 60) || 'host'}_${process.pid}`;
}

/** With no token, anyone who reaches the port could create an agent whose command runs as this user. */
function refuseUnsafeBinding(host: string, apiToken: string | undefined): void {
  if (apiToken || isLoopbackHost(host)) return;
  throw new ConfigError(
    `Refusing to start: OFFICE_HOST=${JSON.stringify(host)} is not a loopback address and OFFICE_API_TOKEN is not set, ` +
    'so anyone who can reach the port could create agents that run commands as this user. ' +
    'Set OFFICE_API_TOKEN to a secret, or bind a loopback address such as OFFICE_HOST=127.0.0.1.',
  );
}
