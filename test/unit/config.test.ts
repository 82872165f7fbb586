import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

/** Expects loadConfig to throw a ConfigError; returns its message. */
function configErrorOf(env: Record<string, string>): string {
  let caught: unknown;
  try {
    loadConfig(env);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ConfigError);
  return (caught as ConfigError).message;
}

describe('configuration defaults (API.md "Configuration")', () => {
  const defaults = loadConfig({});

  it('stores the database at ./data/office.db and binds 127.0.0.1:7700 when nothing is set', () => {
    expect(defaults.dbPath).toBe('./data/office.db');
    expect(defaults.host).toBe('127.0.0.1');
    expect(defaults.port).toBe(7700);
  });

  it('leaves the API unauthenticated and the base URL unset when OFFICE_API_TOKEN and OFFICE_API_URL are absent', () => {
    expect(defaults.apiToken).toBeUndefined();
    expect(defaults.apiUrl).toBeUndefined();
  });

  it('backs off 2m,10m,30m,2h (in milliseconds) with 0.25 jitter by default', () => {
    expect(defaults.backoffStepsMs).toEqual([2 * 60_000, 10 * 60_000, 30 * 60_000, 2 * 3_600_000]);
    expect(defaults.backoffJitter).toBe(0.25);
  });

  it('uses a 30 s rate-limit buffer, a 5000 ms coalescing window, a 24 h idempotency window and a 600 s recovery sweep by default', () => {
    expect(defaults.rateLimitBufferSec).toBe(30);
    expect(defaults.coalesceWindowMs).toBe(5000);
    expect(defaults.idempotencyWindowMs).toBe(24 * 3_600_000);
    expect(defaults.recoverySweepSec).toBe(600);
  });

  it('limits request bodies to 1 MiB and uses synchronous=NORMAL by default', () => {
    expect(defaults.bodyLimitBytes).toBe(1024 * 1024);
    expect(defaults.sqliteSync).toBe('NORMAL');
  });

  it('gives every run a 7200 s timeout by default (OFFICE_RUN_TIMEOUT_SEC), and rejects a non-positive one', () => {
    expect(defaults.runTimeoutSec).toBe(7200);
    expect(loadConfig({ OFFICE_RUN_TIMEOUT_SEC: '2' }).runTimeoutSec).toBe(2);
    expect(configErrorOf({ OFFICE_RUN_TIMEOUT_SEC: '0' })).toContain('OFFICE_RUN_TIMEOUT_SEC');
  });

  it('ignores variables that do not start with OFFICE_', () => {
    expect(loadConfig({ PORT: '1', DB: '/x', HOST: '0.0.0.0' })).toEqual(defaults);
  });
});

describe('configuration overrides', () => {
  it('reads every timing constant from the environment and converts units', () => {
    const config = loadConfig({
      OFFICE_DB: '/tmp/x.db',
      OFFICE_HOST: '0.0.0.0',
      OFFICE_PORT: '8123',
      OFFICE_API_TOKEN: 'secret',
      OFFICE_BACKOFF: '200ms,1s,3m',
      OFFICE_BACKOFF_JITTER: '0',
      OFFICE_RATE_LIMIT_BUFFER_SEC: '5',
      OFFICE_COALESCE_WINDOW_MS: '300',
      OFFICE_IDEMPOTENCY_WINDOW_HOURS: '2',
      OFFICE_RECOVERY_SWEEP_SEC: '0',
      OFFICE_SQLITE_SYNC: 'FULL',
      OFFICE_BODY_LIMIT_BYTES: '2048',
    });
    expect(config).toMatchObject({
      dbPath: '/tmp/x.db',
      host: '0.0.0.0',
      port: 8123,
      apiToken: 'secret',
      backoffStepsMs: [200, 1000, 180_000],
      backoffJitter: 0,
      rateLimitBufferSec: 5,
      coalesceWindowMs: 300,
      idempotencyWindowMs: 2 * 3_600_000,
      recoverySweepSec: 0,
      sqliteSync: 'FULL',
      bodyLimitBytes: 2048,
    });
  });
});

describe('a bad configuration value throws a ConfigError naming the variable and what it expects', () => {
  it('OFFICE_PORT=abc is rejected as not a number', () => {
    const message = configErrorOf({ OFFICE_PORT: 'abc' });
    expect(message).toContain('OFFICE_PORT');
    expect(message).toContain('"abc"');
    expect(message).toMatch(/number/i);
  });

  it('OFFICE_PORT=70000 is rejected as above the highest port', () => {
    const message = configErrorOf({ OFFICE_PORT: '70000' });
    expect(message).toContain('OFFICE_PORT');
    expect(message).toContain('65535');
  });

  it('OFFICE_BACKOFF=2m,x is rejected naming the bad step and the accepted units', () => {
    const message = configErrorOf({ OFFICE_BACKOFF: '2m,x' });
    expect(message).toContain('OFFICE_BACKOFF');
    expect(message).toContain("'x'");
    expect(message).toMatch(/ms, s, m, h/);
  });

  it('OFFICE_BACKOFF_JITTER=2 is rejected as above 1', () => {
    const message = configErrorOf({ OFFICE_BACKOFF_JITTER: '2' });
    expect(message).toContain('OFFICE_BACKOFF_JITTER');
    expect(message).toMatch(/<=\s*1/);
  });

  it('OFFICE_SQLITE_SYNC=OFF is rejected listing NORMAL and FULL', () => {
    const message = configErrorOf({ OFFICE_SQLITE_SYNC: 'OFF' });
    expect(message).toContain('OFFICE_SQLITE_SYNC');
    expect(message).toContain('NORMAL');
    expect(message).toContain('FULL');
  });

  it('OFFICE_RECOVERY_SWEEP_SEC=-1 is rejected as below 0', () => {
    const message = configErrorOf({ OFFICE_RECOVERY_SWEEP_SEC: '-1' });
    expect(message).toContain('OFFICE_RECOVERY_SWEEP_SEC');
    expect(message).toMatch(/>=\s*0/);
  });

  it('OFFICE_API_URL with a trailing slash is rejected', () => {
    const message = configErrorOf({ OFFICE_API_URL: 'http://127.0.0.1:7700/' });
    expect(message).toContain('OFFICE_API_URL');
    expect(message).toMatch(/trailing slash/);
  });

  it('OFFICE_RETENTION_DAYS takes a whole number of days up to 36500, 90 by default and 0 to keep everything', () => {
    expect(loadConfig({}).retentionDays).toBe(90);
    expect(loadConfig({ OFFICE_RETENTION_DAYS: '0' }).retentionDays).toBe(0);
    expect(loadConfig({ OFFICE_RETENTION_DAYS: '365' }).retentionDays).toBe(365);
    for (const bad of ['-1', '1.5', 'ninety', '', '30d']) {
      expect(configErrorOf({ OFFICE_RETENTION_DAYS: bad })).toMatch(/OFFICE_RETENTION_DAYS=.*whole number of days, such as 90 \(0 keeps all history\)/);
    }
    expect(configErrorOf({ OFFICE_RETENTION_DAYS: '40000' })).toMatch(/OFFICE_RETENTION_DAYS="40000": expected at most 36500 days/);
  });

  it('names every bad variable when several are wrong at once', () => {
    const message = configErrorOf({ OFFICE_PORT: 'abc', OFFICE_SQLITE_SYNC: 'OFF' });
    expect(message).toContain('OFFICE_PORT');
    expect(message).toContain('OFFICE_SQLITE_SYNC');
  });
});

describe('the traces endpoint (README, "Tracing")', () => {
  it('is off with no OTLP endpoint, and off when the SDK or the traces exporter is turned off', () => {
    expect(loadConfig({}).tracesEndpoint).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).tracesEndpoint).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }).tracesEndpoint).toBeUndefined();
  });

  it('is the base endpoint plus /v1/traces, or the traces endpoint as it is, which wins', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracesEndpoint).toBe('http://collector:4318/v1/traces');
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example.com/otlp' }).tracesEndpoint)
      .toBe('https://traces.example.com/otlp');
  });

  it('stops start-up on an endpoint that is no http(s) URL, naming the variable and what it expects', () => {
    expect(configErrorOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toMatch(/OTEL_EXPORTER_OTLP_ENDPOINT="collector:4318": expected an http\(s\) URL/);
    expect(configErrorOf({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'grpc://collector:4317' })).toMatch(/OTEL_EXPORTER_OTLP_TRACES_ENDPOINT/);
  });
});
