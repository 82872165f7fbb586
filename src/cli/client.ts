/**
 * The CLI's way to the API: the typed client (office-scheduler/client) at the base URL and with the
 * token from the environment, and every failure turned into a CliError carrying the exit code it
 * means: the API's refusal with its own message, or a scheduler that does not answer.
 */
import { createOfficeClient, OfficeApiError, OfficeUnreachableError, unwrap, type OfficeClient } from '../client/index.js';

export const EXIT = {
  ok: 0,
  /** The API refused the request (4xx/5xx). */
  api: 1,
  /** The command line itself is wrong. */
  usage: 2,
  /** Nothing answered at OFFICE_API_URL (or on OFFICE_PORT). */
  connect: 3,
} as const;

export class CliError extends Error {
  /** `topic`: the command whose help a usage error points to (`office-scheduler help <topic>`). */
  constructor(message: string, readonly exitCode: number, readonly topic?: string) {
    super(message);
  }
}

export const DEFAULT_API_URL = 'http://127.0.0.1:7700';

/**
 * OFFICE_API_URL when set (a scheduler elsewhere, or behind a proxy); otherwise the local one on
 * OFFICE_PORT, the variable `npm start` itself listens on, so one setting serves both.
 */
export function apiUrlFromEnv(env: NodeJS.ProcessEnv): string {
  if (env.OFFICE_API_URL) return env.OFFICE_API_URL;
  const port = env.OFFICE_PORT;
  if (!port) return DEFAULT_API_URL;
  if (!/^\d+$/.test(port) || Number(port) < 1 || Number(port) > 65535) {
    throw new CliError(`OFFICE_PORT '${port}' is not a port number (1 to 65535); set it to the scheduler's port, or set OFFICE_API_URL`, EXIT.usage);
  }
  return `http://127.0.0.1:${Number(port)}`;
}

interface Answer<T> { data?: T; error?: unknown; response: Response }

export class ApiClient {
  readonly baseUrl: string;
  /** The typed client: `api.call(api.office.GET('/api/office/agents', …))`. */
  readonly office: OfficeClient;

  constructor(baseUrl: string, private readonly token: string | undefined) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    try {
      const url = new URL(this.baseUrl);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
    } catch {
      throw new CliError(`OFFICE_API_URL '${baseUrl}' is not an http(s) URL; expected something like ${DEFAULT_API_URL}`, EXIT.usage);
    }
    this.office = createOfficeClient({ baseUrl: this.baseUrl, token });
  }

  static fromEnv(env: NodeJS.ProcessEnv): ApiClient {
    return new ApiClient(apiUrlFromEnv(env), env.OFFICE_API_TOKEN || undefined);
  }

  /** The body of a successful answer; a refusal or an unreachable scheduler as a CliError. */
  async call<T>(answer: Promise<Answer<T>>): Promise<T> {
    try {
      return await unwrap(answer);
    } catch (error) {
      throw this.cliError(error);
    }
  }

  private cliError(error: unknown): unknown {
    if (error instanceof OfficeUnreachableError) {
      return new CliError(`cannot connect to ${this.baseUrl} (${error.reason}): is the scheduler running at ${this.baseUrl}? Start it with \`office-scheduler serve\`, or set OFFICE_API_URL (or OFFICE_PORT) to where it runs.`, EXIT.connect);
    }
    if (error instanceof OfficeApiError) {
      const hint = error.status === 401
        ? this.token ? ' (check OFFICE_API_TOKEN)' : ' (this scheduler needs a token: set OFFICE_API_TOKEN)'
        : '';
      return new CliError(`${requestOf(error.url)} failed: ${error.status} ${error.code}: ${error.message}${hint}`, EXIT.api);
    }
    return error;
  }
}

/** `/api/office/agents?workspace_id=…` from the request's URL: what the message names. */
function requestOf(url: string): string {
  try {
    const { pathname, search } = new URL(url);
    return `${pathname}${search}`;
  } catch {
    return 'the request';
  }
}
